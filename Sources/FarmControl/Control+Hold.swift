import FarmSpool

extension Control {
    /// Takes list `id`'s queued and claimed jobs out of the workers' reach, their bytes kept (Hold.swift):
    /// `farm get`'s ^C, aria2's `pause` of one download. Returns how many jobs it moved.
    public func hold(list id: String) throws(ControlError) -> Int {
        try spoolCall { () throws(SpoolError) in try spool.held.hold(list: id) }
    }

    /// Lets list `id`'s held jobs go, first in line, each to resume from the bytes it has.
    public func release(list id: String) throws(ControlError) -> Int {
        try spoolCall { () throws(SpoolError) in try spool.held.release(list: id) }
    }
}
