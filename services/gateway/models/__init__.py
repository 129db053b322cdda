"""The models this instance uses, as Settings shows and changes them: the request and response
bodies (schemas), saving and reading them (setup), which model does which work and whether it
answers (status, probe), and the admin's "Test connection" (connection_test)."""
