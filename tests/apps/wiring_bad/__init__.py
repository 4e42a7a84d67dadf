from mesh_framework import mesh_agent


@mesh_agent(name="wiring-bad")
class WiringBad:
    pass
