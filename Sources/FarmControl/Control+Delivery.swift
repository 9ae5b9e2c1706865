import FarmLists
import FarmSpool
import FarmSystem
import FoundationEssentials
import Glibc

extension Control {
    /// The delivery of `farm add --out DIR [--name TEMPLATE] [--link]` (SPEC §12), checked: the template
    /// parses and tells resources apart, and DIR (made if missing, kept as an absolute path) takes a new
    /// file. It carries the mode this process's umask gives a new file: the worker that makes the copies
    /// later runs with the umask of `farm start`, which is not the user's. A recursive list's files are
    /// named as wget names them unless TEMPLATE says otherwise, and `convertLinks` (`--convert-links`) has
    /// their links rewritten once the list is finished (SPEC §18). Throws `.badDelivery` with one sentence.
    public static func delivery(folder: String, template: String?, link: Bool = false, recursive: Bool = false,
                                convertLinks: Bool = false) throws(ControlError) -> Delivery {
        let template = template ?? (recursive ? DeliveryTemplate.mirrorText : DeliveryTemplate.defaultText)
        do { _ = try DeliveryTemplate(template) } catch { throw ControlError(.badDelivery, error.description) }
        let absolute = folder.hasPrefix("/") ? folder : FileManager.default.currentDirectoryPath + "/" + folder
        do { try FileSystem.ensureDirectories(absolute) } catch {
            throw ControlError(.badDelivery, "cannot make the folder \(folder): \(error)")
        }
        let probe = absolute + "/.farm-probe-\(getpid())"
        do {
            try FileSystem.createFile(probe, [])
            try FileSystem.unlink(probe)
        } catch {
            throw ControlError(.badDelivery, "cannot write in the folder \(folder): \(error)")
        }
        let real = (try? FileSystem.realPath(absolute)) ?? absolute
        let mode = Int(0o666 & ~Processes.fileCreationMask())
        var delivery = Delivery(folder: real, template: template, link: link, mode: mode)
        delivery.convertLinks = convertLinks ? true : nil
        return delivery
    }
}
