"""Activities: every piece of I/O and computation the workflows orchestrate.

Each activity is short, idempotent (a retry finds its own earlier write) and thin: the
actuarial and rendering work lives in pure modules that these wrap.
"""
