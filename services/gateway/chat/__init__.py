"""Chat: the personas one talks to, a question sent to the chat service, its answer relayed as it
arrives."""
