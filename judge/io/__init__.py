"""The engine's input side: image references (paths, data URLs, https URLs) vetted and decoded
(:mod:`judge.io.images`), remote images fetched safely (:mod:`judge.io.remote`: hostile-URL
checks, size and time limits), and the decoded-pixel budget that bounds memory across
concurrent requests (:mod:`judge.io.pixel_budget`)."""
