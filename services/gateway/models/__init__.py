"""The models this instance uses, as Settings shows and changes them: the request and response
bodies (schemas), saving and reading them (setup) and the admin's "Test connection"."""
