/// How a job ended, for good.
public enum Outcome: Sendable {
    case done, failed
}
