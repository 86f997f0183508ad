"""Sample inputs of the four documents (tests, bench/documents.py, looking at a PDF by hand):
a Bengaluru cover priced by a small Monte Carlo of its own, with the project's payout rule."""
