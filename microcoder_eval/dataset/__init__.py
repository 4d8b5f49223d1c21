"""Training-set builder: read many source formats, verify, dedup, decontaminate, filter by difficulty.

Entry point: ``microcoder-eval build-dataset`` (:mod:`microcoder_eval.dataset.cli`); the pipeline
itself is :func:`microcoder_eval.dataset.build.build_dataset`.
"""
