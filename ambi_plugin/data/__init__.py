"""The data layer of ambi-plugin: a release -> rows for a harness (:mod:`.sources`, ``ambi://`` paths; :mod:`.no_records`),
replay files (:mod:`.replayfiles`), where each benchmark's data stands (:mod:`.status`), and building, validating and
publishing the benchmarks as HF datasets (:mod:`.hub`). The synthetic suite is :mod:`ambi_plugin.synth`."""
