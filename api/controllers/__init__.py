"""One controller per resource and surface."""
