"""Datasets of ambi-plugin: loaders for the released benchmarks and the embedded synthetic suite."""
