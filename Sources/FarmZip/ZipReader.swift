/// Placeholder: the safe zip reader lands here (issue 3).
public enum ZipPlaceholder {}
