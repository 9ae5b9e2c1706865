import FarmLists
import FarmSpool
import FarmStatus
import FarmSystem
import FoundationEssentials

/// The watcher process's second thread (see Durability.swift in FarmSpool): first, after a reboot,
/// it sends back the finished jobs whose outputs the disk lost; then, every `interval`, it makes the
/// jobs finished since, and the partials being written, durable with one syncfs. A thread of its own,
/// as a sync may wait seconds for a busy disk while the summary must stay a fraction of a second behind
/// the spool.
public enum FinishedSync {
    public static let interval = 1.0

    public static func start(_ spool: Spool, interval: Double = interval) {
        Threads.detach {
            do {
                let redone = try Lists(spool).recheckAfterReboot()
                if !redone.isEmpty {
                    spool.log("after a reboot, \(redone.count) finished job(s) had lost their outputs and were "
                              + "queued again: \(redone.prefix(10).map(\.raw).joined(separator: ", "))")
                }
            } catch {
                spool.log("cannot check the finished jobs after a reboot: \(error)")
            }
            while true {
                // Never ended: the thread lives as long as the watcher, paused farm or not.
                Clock.pause(interval, every: interval)
                do { try spool.durability.syncFinished() } catch { spool.log("\(error)") }
            }
        }
    }
}
