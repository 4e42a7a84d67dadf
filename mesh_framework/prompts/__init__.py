"""Prompts: `@mesh_prompt` functions and Markdown files with YAML front matter, served as MCP prompts."""

from .arguments import Argument, ArgumentError, analyze_arguments
from .catalog import Prompt, PromptCatalog, PromptError
from .decorator import PromptSpec, mesh_prompt
from .markdown import MarkdownPrompt, PromptFileError, load_prompt_file, load_prompt_folder
from .messages import PromptMessage, to_messages

__all__ = [
    "Argument",
    "ArgumentError",
    "MarkdownPrompt",
    "Prompt",
    "PromptCatalog",
    "PromptError",
    "PromptFileError",
    "PromptMessage",
    "PromptSpec",
    "analyze_arguments",
    "load_prompt_file",
    "load_prompt_folder",
    "mesh_prompt",
    "to_messages",
]
