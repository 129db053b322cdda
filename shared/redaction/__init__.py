"""The kinds of secret that take more than one pattern to recognise (IBANs, passwords given in a
sentence); shared/secrets.py applies them with the rest."""
