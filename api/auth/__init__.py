"""OAuth 2.0 client credentials: the service as its own identity provider, or an external one."""
