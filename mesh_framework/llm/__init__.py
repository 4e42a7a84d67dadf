"""The LLM: `@mesh_llm` tools and routes given an agent that runs a model's tool loop, and
`@mesh_llm_provider` tools serving a vendor's model to the mesh. Importing the package loads none of its
modules (an app without an LLM loads only llm/auto_configuration.py)."""
