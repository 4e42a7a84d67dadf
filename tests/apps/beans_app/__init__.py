"""An agent whose beans use every piece of the container: `@configuration` classes with sync, async and
generator `@bean` methods, a call-scoped bean, a prototype, a `list[T]` collection and conditions. Every
bean made and closed is logged (`EVENTS`, and the file `BEANS_LOG` names when set)."""

from mesh_framework import mesh_agent

from . import parts as parts


@mesh_agent(name="beans-app")
class BeansApp:
    pass
