from mesh_framework import mesh_agent


@mesh_agent(name="wiring-ok", exclude=["tests.apps.wiring_ok.ignored"])
class WiringOk:
    pass
