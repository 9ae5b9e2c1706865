import FarmJSON

/// The limits `farm start --per-host N --rate-per-host R` set; nil means no limit.
public struct HostLimits: Equatable, Sendable {
    /// At most this many transfers at once to one host, across the whole farm.
    public var perHost: Int?
    /// At most this many requests a second to one host, across the whole farm.
    public var ratePerHost: Double?

    public init(perHost: Int? = nil, ratePerHost: Double? = nil) {
        self.perHost = perHost
        self.ratePerHost = ratePerHost
    }

    public var isNone: Bool { perHost == nil && ratePerHost == nil }
}
