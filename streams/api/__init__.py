"""The read side: a Python reader of a tenant's memory, the HTTP JSON API over the same
functions, and the Playground pages (DESIGN "Read side")."""
