"""Internal surface: fast quotes, their acceptance and rejection, and policies from quotes."""
