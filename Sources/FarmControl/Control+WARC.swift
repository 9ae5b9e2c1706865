import FarmSpool
import FarmSystem
import FarmTransfer
import FoundationEssentials
import Glibc

extension Control {
    /// The WARC of `farm add --warc DIR [--warc-max-size BYTES]` (SPEC §18), checked: DIR is made if missing,
    /// kept as an absolute path, and takes a new file (one is made and removed), so that a list whose records
    /// could go nowhere is refused at its add and not at each of its resources. Throws `.badRequestOption`
    /// with one sentence; nil without `folder`.
    public static func warc(folder: String?, maxSize: String?) throws(ControlError) -> WARCSettings? {
        guard let folder else {
            if maxSize != nil { throw ControlError(.badRequestOption, "--warc-max-size goes with --warc DIR") }
            return nil
        }
        var settings = WARCSettings(folder: folder)
        if let maxSize {
            guard let bytes = try? Self.bandwidth(maxSize), bytes >= 1 << 20 else {
                throw ControlError(.badRequestOption, "--warc-max-size must be a size of at least 1M (such as 100M or 1G)")
            }
            settings.maxSize = bytes
        }
        let absolute = folder.hasPrefix("/") ? folder : FileManager.default.currentDirectoryPath + "/" + folder
        let probe = absolute + "/.farm-probe-\(getpid())"
        do {
            try FileSystem.ensureDirectories(absolute)
            try FileSystem.createFile(probe, [])
            try FileSystem.unlink(probe)
        } catch {
            throw ControlError(.badRequestOption, "cannot write WARC files in \(folder): \(error)")
        }
        settings.folder = (try? FileSystem.realPath(absolute)) ?? absolute
        return settings
    }

    /// Notes the folder of `settings` in the spool, where the farm's recovery finds the files of dead writers
    /// (WARCFiles.register): before the list is added, so that none of its files is left out.
    public func noteWARC(_ settings: WARCSettings?) throws(ControlError) {
        guard let settings else { return }
        do { try spool.warc.register(settings.folder) } catch {
            throw ControlError(.spoolFailed, spool.warc.folders, cause: RequestOptionError(
                "cannot note the WARC folder \(settings.folder) in \(spool.warc.folders): \(error)"))
        }
    }
}

extension RequestOptions? {
    /// These options with `warc` too (none given: as they are).
    public func adding(warc: WARCSettings?) -> RequestOptions? {
        guard let warc else { return self }
        var options = self ?? RequestOptions()
        options.warc = warc
        return options
    }
}
