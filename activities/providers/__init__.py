"""Data providers: where measured index inputs come from (docs/observations.md).

Each provider turns its source's own published format into `ObservationIn` rows for the
monitoring targets asked for; the ingestion activity validates and stores them exactly as a
POST batch is. Parsing is pure (tested on recorded responses and files the tests write);
fetching is the only I/O.
"""
