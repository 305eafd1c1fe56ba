"""Configuration variants: versioned sets of knob values and role prompts, one of them
active, applied to runs below the command line and the environment in precedence."""
