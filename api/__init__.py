"""HTTP surfaces (Litestar), authentication, problem details and the `parametric` CLI."""
