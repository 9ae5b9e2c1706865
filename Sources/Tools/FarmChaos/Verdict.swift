import Crypto
import FarmFixtures
import FarmFsck
import FarmHooks
import FarmJSON
import FarmSpool
import FarmStatus
import Foundation
import Glibc

/// The end-state check of a chaos run, on a stopped farm: every resource of every manifest in exactly
/// one terminal state (the one it deserves), every download sha256-equal to the origin's bytes, every
/// display image and thumbnail a valid picture, no output twice nor any stray file next to them,
/// nothing left in active/, tmp/ or partial/, nothing set aside in corrupt/, `farm status` agreeing, the
/// paged list (when there is one) finished with exactly its API's items in order, every done resource of
/// the delivering list (when there is one) in its folder with the same bytes and nothing else there (no
/// half-written copy), every done resource of the list with a hook (when there is one) run through it at
/// least once with its run recorded and none left to run, and `farm fsck` finding the spool sound.
struct Verdict {
    var resources = 0
    /// Downloads and ZIP entries checked, and those whose SHA-256 is the origin's.
    var digests = 0
    var sameDigest = 0
    var done = 0
    var failed = 0
    /// Resources not in a terminal state (or nowhere at all).
    var lost: [String] = []
    /// Resources in more than one place, jobs or lists nobody added, "twice" in the log.
    var duplicated: [String] = []
    /// Bytes that differ from the origin's, invalid images, missing outputs, wrong outcomes.
    var corrupt: [String] = []
    /// Files under files/ that are no resource's output (a half-written temporary, a second copy).
    var strays: [String] = []
    /// Whatever is left in active/, tmp/, partial/ or corrupt/.
    var leftovers: [String] = []
    /// Resources whose `farm status LIST --json` entry disagrees with the spool.
    var statusErrors: [String] = []
    /// What `farm fsck` found (one line each), or why it could not say.
    var fsck: [String] = []
    /// What is wrong with the paged list beyond its resources (`PagedList.findings`).
    var paged: [String] = []
    /// What is wrong with the mirrored site's list (`RecursiveSite.findings`), which checks its resources too.
    var mirrored: [String] = []

    var clean: Bool {
        lost.isEmpty && duplicated.isEmpty && corrupt.isEmpty && strays.isEmpty && leftovers.isEmpty
            && statusErrors.isEmpty && fsck.isEmpty && paged.isEmpty && mirrored.isEmpty
    }

    /// `mounts`: the spool's other paths (a cluster host's mount of it), whose outputs' paths name the same
    /// files as the spool's own path.
    /// `delivery`: the list added with `--out`, and its folder.
    static func check(spool: Spool, corpus: ChaosCorpus, farm: FarmCommand, mounts: [String] = [],
                      paged: PagedList? = nil, site: RecursiveSite? = nil,
                      delivery: (list: String, folder: String)? = nil,
                      hooks: (list: String, ran: String)? = nil) -> Verdict {
        // The spool's path in place of the mount it was written through.
        let local = { (path: String?) -> String? in
            guard let path, let mount = mounts.first(where: { path.hasPrefix($0 + "/") }) else { return path }
            return spool.root + path.dropFirst(mount.count)
        }
        var verdict = Verdict()
        var delivered: Set<String> = []
        let places = jobPlaces(spool)
        // The files the hook was run for, a line each run.
        let ran = Set(((try? String(contentsOfFile: hooks?.ran ?? "", encoding: .utf8)) ?? "").split(separator: "\n")
            .map { local(String($0)) ?? "" })
        var expectedJobs: Set<String> = []
        for (name, resources) in corpus.lists.sorted(by: { $0.key < $1.key }) {
            let id = ListID.of(name: name)
            if !FileManager.default.fileExists(atPath: spool.lists.recordPath(id)) {
                verdict.lost.append("list \(name) was never published")
            }
            let status = statusEntries(farm, list: name)
            // The bytes checked at each job are those of the resource at its index, so an order gone
            // wrong shows as corrupt outputs.
            let order = Resource.order(ofList: name, in: spool)
            var expectedFiles: Set<String> = []
            for resource in resources {
                verdict.resources += 1
                let jobName = resource.job(order: order)
                let job = jobName.raw
                expectedJobs.insert(job)
                let where_ = places[job] ?? []
                if where_.count > 1 { verdict.duplicated.append("\(job) (\(resource.path)) is in \(where_)") }
                let terminal = where_.filter { $0 == "done" || $0 == "failed" }
                guard terminal.count == 1 else {
                    if where_.count <= 1 { verdict.lost.append("\(job) (\(resource.path)) is in \(where_)") }
                    continue
                }
                if terminal[0] == "failed" { verdict.failed += 1 } else { verdict.done += 1 }
                let wanted = resource.kind.succeeds ? "done" : "failed"
                guard terminal[0] == wanted else {
                    verdict.corrupt.append("\(job) (\(resource.path), \(resource.kind)) ended \(terminal[0])")
                    continue
                }
                let base = spool.outputBase(jobName)
                if resource.kind.succeeds {
                    let thumb = local(spool.sidecars.last(jobName)?.thumb)
                    let outputs = checkOutputs(resource, job: jobName, base: base, thumb: thumb, &verdict)
                    expectedFiles.formUnion(outputs.names)
                    let entry = status[resource.index].map {
                        var entry = $0
                        (entry.file, entry.image) = (local(entry.file), local(entry.image))
                        return entry
                    }
                    checkStatus(entry, job: job, file: outputs.file, image: outputs.image, &verdict)
                    if name == hooks?.list {
                        let file = local(spool.sidecars.last(jobName)?.file)
                        if file == nil || !ran.contains(file!) {
                            verdict.lost.append("\(job): its hook never ran for \(file ?? "its file")")
                        } else if spool.hooks.results(ofList: id)[jobName.index]?.succeeded != true {
                            verdict.statusErrors.append("\(job): its hook's run was not recorded")
                        }
                    }
                    if name == delivery?.list {
                        let path = spool.sidecars.last(jobName)?.delivered
                        if let path, digest(path) == resource.sha256 {
                            delivered.insert(path)
                        } else {
                            verdict.corrupt.append("\(job): delivered as \(path ?? "nothing"), not the origin's bytes")
                        }
                    }
                } else if status[resource.index]?.status != .error {
                    let shown = status[resource.index]?.status.rawValue ?? "nothing"
                    verdict.statusErrors.append("\(job): status says \(shown)")
                }
            }
            let directory = spool.outputDirectory(ofList: id)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            where !expectedFiles.contains(name) {
                verdict.strays.append(directory + "/" + name)
            }
        }
        if let delivery {
            // As `farm add` recorded it: the real path (a temporary directory's may hold `//` or a link).
            let folder = URL(fileURLWithPath: delivery.folder).resolvingSymlinksInPath().path
            for name in FileManager.default.subpaths(atPath: folder) ?? [] {
                let path = folder + "/" + name
                var st = stat()
                if lstat(path, &st) == 0, st.st_mode & S_IFMT != S_IFDIR, !delivered.contains(path) {
                    verdict.strays.append(path)
                }
            }
        }
        // The mirrored site's jobs are numbered as its pages were fetched: `RecursiveSite.findings` checks them.
        let siteList = site.map { _ in ListID.of(name: RecursiveSite.name) }
        for (job, where_) in places where !expectedJobs.contains(job) && JobName(job)?.list != siteList {
            verdict.duplicated.append("\(job) is in \(where_) but in no manifest")
        }
        let knownLists = Set(corpus.lists.keys.map { ListID.of(name: $0) } + (siteList.map { [$0] } ?? []))
        // lists/ holds `<id>.json` (the record) and `<id>.resources` (its resource table).
        for name in (try? FileManager.default.contentsOfDirectory(atPath: spool.lists.folder)) ?? []
        where !knownLists.contains(String(name.prefix { $0 != "." })) {
            verdict.duplicated.append("list record \(name) belongs to no manifest")
        }
        for directory in [spool.active, spool.tmp, spool.partial, spool.corrupt, spool.hooks.queue, spool.hooks.active] {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
                verdict.leftovers.append(directory + "/" + name)
            }
        }
        let log = (try? String(contentsOfFile: spool.logFile, encoding: .utf8)) ?? ""
        for line in log.split(separator: "\n") where line.contains("twice") {
            verdict.duplicated.append("log: " + line)
        }
        verdict.paged = paged?.findings(farm) ?? []
        verdict.mirrored = site?.findings(spool: spool, farm: farm) ?? []
        verdict.fsck = fsckFindings(farm)
        return verdict
    }

    /// Prints each finding (20 of each kind at most), and the control commands that failed.
    func printFindings(commandErrors: [String], syncErrors: [String] = []) {
        for (title, items) in [("lost", lost), ("duplicated", duplicated), ("corrupt", corrupt), ("stray", strays),
                               ("left behind", leftovers), ("status", statusErrors), ("paged list", paged), ("mirrored site", mirrored), ("fsck", fsck),
                               ("command errors", commandErrors), ("sync round", syncErrors)]
        where !items.isEmpty {
            print("\(title):")
            for item in items.prefix(20) { print("  " + item) }
            if items.count > 20 { print("  … and \(items.count - 20) more") }
        }
    }

    /// `farm fsck --json` on the final spool: its findings as lines, none when it exits 0.
    private static func fsckFindings(_ farm: FarmCommand) -> [String] {
        guard let result = try? farm.run(["fsck", "--json"], timeout: 300) else { return ["farm fsck did not run"] }
        if result.status == 0 { return [] }
        guard let report = JSON.decode(FsckReport.self, from: Array(result.output.utf8)), !report.findings.isEmpty
        else {
            return ["farm fsck exited \(result.status): " + result.error.trimmingCharacters(in: .whitespacesAndNewlines)]
        }
        return report.findings.map { "\($0.kind.rawValue) \($0.path): \($0.detail)" }
    }

    /// Checks the outputs of a done resource; returns the names it may have in files/<list>/, and the
    /// paths of its download and display image.
    private static func checkOutputs(_ resource: Resource, job jobName: JobName, base: String, thumb: String?,
                                     _ verdict: inout Verdict) -> (names: Set<String>, file: String, image: String) {
        let job = jobName.raw
        let index = String(jobName.index)
        let file = base + "." + resource.kind.fileExtension
        var names: Set<String> = [index + "." + resource.kind.fileExtension, index + ".thumb.png"]
        verdict.digests += 1
        if digest(file) != resource.sha256 {
            verdict.corrupt.append("\(file) is not the origin's \(resource.path)")
        } else {
            verdict.sameDigest += 1
        }
        var image = file
        switch resource.kind {
        case .pdf:
            image = base + ".page1.png"
            names.insert(index + ".page1.png")
        case .zipPNG, .zipPDF:
            let unzipped = base + ".unzipped"
            names.insert(index + ".unzipped")
            guard let entry = resource.entry else { break }
            let extracted = unzipped + "/" + entry.name
            verdict.digests += 1
            if digest(extracted) != entry.sha256 {
                verdict.corrupt.append("\(extracted) is not the ZIP's entry")
            } else {
                verdict.sameDigest += 1
            }
            for name in (try? FileManager.default.contentsOfDirectory(atPath: unzipped)) ?? [] where name != entry.name {
                verdict.strays.append(unzipped + "/" + name)
            }
            if resource.kind == .zipPDF {
                image = base + ".page1.png"
                names.insert(index + ".page1.png")
            } else {
                image = extracted
            }
        default:
            break
        }
        if image.hasSuffix(".png"), !validPNG(image) { verdict.corrupt.append("\(job): \(image) is not a valid PNG") }
        // The thumbnail is `<index>.thumb.png`, or the display image itself when that is no bigger.
        if thumb == image {
            if FileManager.default.fileExists(atPath: base + ".thumb.png") {
                verdict.strays.append(base + ".thumb.png")
            }
        } else if thumb != base + ".thumb.png" || !validPNG(base + ".thumb.png") {
            verdict.corrupt.append("\(job): no valid thumbnail (sidecar: \(thumb ?? "none"))")
        }
        return (names, file, image)
    }

    private static func checkStatus(_ entry: ResourceStatus?, job: String, file: String, image: String,
                                    _ verdict: inout Verdict) {
        guard let entry else {
            verdict.statusErrors.append("\(job): not in farm status")
            return
        }
        if entry.status != .done { verdict.statusErrors.append("\(job): status \(entry.status.rawValue)") }
        if entry.file != file { verdict.statusErrors.append("\(job): file \(entry.file ?? "none")") }
        if entry.image != image { verdict.statusErrors.append("\(job): image \(entry.image ?? "none")") }
    }

    /// `farm status LIST --json`, its resources by index.
    private static func statusEntries(_ farm: FarmCommand, list: String) -> [Int: ResourceStatus] {
        guard let result = try? farm.run(["status", list, "--json"]), result.status == 0,
              let view = JSON.decode(ListStatus.self, from: Array(result.output.utf8)) else { return [:] }
        var byIndex: [Int: ResourceStatus] = [:]
        for resource in view.resources ?? [] { byIndex[resource.index] = resource }
        return byIndex
    }

    /// Where every job file is: "queue", "active", "done" or "failed", once per copy.
    static func jobPlaces(_ spool: Spool) -> [String: [String]] {
        var places: [String: [String]] = [:]
        let fm = FileManager.default
        func names(_ path: String) -> [String] {
            ((try? fm.contentsOfDirectory(atPath: path)) ?? []).filter { !$0.hasPrefix(".") }
        }
        spool.forEachQueued { _, job in
            if !job.hasPrefix(".") { places[job, default: []].append("queue") }
        }
        for name in spool.claimedNames() {
            if let job = ActiveName(name)?.job { places[job.raw, default: []].append("active") }
        }
        for (root, label) in [(spool.done, "done"), (spool.failed, "failed")] {
            for list in names(root) {
                for job in names(root + "/" + list) { places[job, default: []].append(label) }
            }
        }
        return places
    }

    private static func digest(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return SHA256.hex([UInt8](data))
    }

    private static func validPNG(_ path: String) -> Bool {
        guard let image = try? PNGImage(path: path) else { return false }
        return image.width > 0 && image.height > 0
    }
}
