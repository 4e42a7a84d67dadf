"""Prompts: `@mesh_prompt` functions and Markdown files with YAML front matter, served as MCP prompts.

The names below are loaded on first use (PEP 562): the decorator is imported by every app, the catalogs
and file readers only by an app that serves prompts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .arguments import Argument, ArgumentError, analyze_arguments
    from .decorator import PromptSpec, mesh_prompt
    from .markdown import MarkdownPrompt, PromptFileError, load_prompt_file, load_prompt_folder
    from .messages import PromptMessage, to_messages
    from .prompt_catalog import Prompt, PromptCatalog, PromptError

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

_LOCATIONS = {
    "Argument": ".arguments",
    "ArgumentError": ".arguments",
    "MarkdownPrompt": ".markdown",
    "Prompt": ".prompt_catalog",
    "PromptCatalog": ".prompt_catalog",
    "PromptError": ".prompt_catalog",
    "PromptFileError": ".markdown",
    "PromptMessage": ".messages",
    "PromptSpec": ".decorator",
    "analyze_arguments": ".arguments",
    "load_prompt_file": ".markdown",
    "load_prompt_folder": ".markdown",
    "mesh_prompt": ".decorator",
    "to_messages": ".messages",
}


__getattr__, __dir__ = lazy_exports(__name__, _LOCATIONS, globals())
