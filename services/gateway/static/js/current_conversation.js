// Which conversation the page shows, kept across reloads. Its own module so that the chat (which
// asks in it) and the conversation list (which chooses it) both read it without importing each
// other: the list drives the chat, and the chat tells the list of each answer through a callback
// main.js wires (onAnswered).

const STORED_CONVERSATION = "artisan.conversation";

let current = null; // the conversation shown; null: a new one, started by its first question

/** The id of the conversation shown (null: a new one). */
export function currentConversation() {
  return current;
}

/** From now on the page shows `id` (null: a new one), and shows it again after a reload. */
export function setCurrentConversation(id) {
  current = id;
  if (id) localStorage.setItem(STORED_CONVERSATION, id);
  else localStorage.removeItem(STORED_CONVERSATION);
}

/** The conversation shown before the page was loaded again, if one was. */
export function rememberedConversation() {
  return localStorage.getItem(STORED_CONVERSATION);
}
