raise RuntimeError("the scan must not import this module (it is excluded)")
