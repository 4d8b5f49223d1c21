"""Sample models on LiveCodeBench problems (vLLM, OpenAI-compatible HTTP, transformers) and run
generate + evaluate + report. Heavy dependencies (torch, transformers, vllm) load lazily."""
