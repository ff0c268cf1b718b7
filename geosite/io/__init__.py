"""Readers and writers: vector layers, DEMs, and atomic output folders."""
