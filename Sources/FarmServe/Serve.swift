// Placeholder: `farm serve` is being built.
