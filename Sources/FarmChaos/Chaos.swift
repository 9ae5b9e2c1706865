// Placeholder: the chaos runner is being built.
print("farm-chaos: not built yet")
