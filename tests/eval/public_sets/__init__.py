"""Tests of the public human-judgment sets: miniatures in each set's published layout."""
