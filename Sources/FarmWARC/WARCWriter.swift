import FarmSystem

/// A process's WARC writer (SPEC §18): exchanges appended as records to WARC/1.1 files in one folder, each
/// record a gzip member of its own, each file opening with a warcinfo record and rotated by size.
///
/// What a kill or a power cut leaves: a record is whole in a file, or absent. A file is written as
/// `<name>.open`; each append writes its members at the file's good end and fdatasyncs before it returns,
/// so a record the caller was told about is on the disk; a torn tail is cut off by the next append or, after
/// a crash, by `WARCRecovery.recover`, which also renames the dead writer's file to `<name>`. `close`
/// finishes the current file the same way.
///
/// Several processes write to one folder at once with no lock between them: each writer owns its files,
/// whose names hold a random nonce of its own (`<prefix>-<yyyyMMddHHmmss>-<serial>-<nonce>.warc.gz`, created
/// exclusively), and holds an flock on its open file only so that recovery can tell it is alive.
/// One thread at a time (a worker's job loop); not Sendable.
public final class WARCWriter {
    public let directory: String
    public let prefix: String
    /// `farm/<version>`, the warcinfo's `software`.
    public let software: String
    /// A file is rotated before a record would take it past this many bytes (see `append`).
    public let maxSize: Int

    private let deflater: Deflater
    private let nonce: String
    private var serial = 0
    private var file: WARCFile?
    private var warcinfoID: WARCRecordID?

    /// What a file's name ends with while it is written (`<name>.open`), until it is finished.
    public static let openSuffix = WARCFile.openSuffix

    /// SPEC §18's default for `--warc-max-size`: 1 GiB.
    public static let defaultMaxSize = 1 << 30

    /// A writer of files in `directory` (created when missing). No file is made before the first append.
    public init(directory: String, prefix: String = "farm", software: String,
                maxSize: Int = WARCWriter.defaultMaxSize) throws(WARCError) {
        guard maxSize > 0 else { throw WARCError("the WARC maximum size must be more than 0 bytes") }
        guard !prefix.isEmpty, !prefix.contains("/") else { throw WARCError("bad WARC file prefix '\(prefix)'") }
        do { try FileSystem.ensureDirectories(directory) } catch {
            throw WARCError("cannot make the WARC folder \(directory)", error)
        }
        self.directory = directory
        self.prefix = prefix
        self.software = software
        self.maxSize = maxSize
        deflater = try Deflater()
        // From the system's generator, not Nonce's: workers are forked copies of the supervisor without an
        // exec, and inherit its Nonce state, so two workers would name their files alike (and each refuse the
        // other's, created exclusively).
        var system = SystemRandomNumberGenerator()
        nonce = Nonce.hex(system.next(), digits: 8)
    }

    deinit {
        // Not finished here: a writer dropped without `close` leaves its file to recovery, whole.
        file?.abandonTail()
    }

    /// Where an exchange's records went.
    public struct Written: Sendable, Equatable {
        /// The file's finished name (it ends `.open` until it is finished).
        public let file: String
        /// Where the response's member starts in it; the request's follows.
        public let offset: Int
        public let responseID: WARCRecordID
        public let requestID: WARCRecordID
    }

    /// Where several exchanges' records went, one after another in one file.
    public struct WrittenGroup: Sendable, Equatable {
        /// The file's finished name (it ends `.open` until it is finished).
        public let file: String
        /// Where the first record's member starts in it; the others follow, one member each.
        public let offset: Int
        /// Every record's ID in the order written: each exchange's response, then its request.
        public let recordIDs: [WARCRecordID]
    }

    /// Appends the response record and then the request record of `exchange` (see `WARCExchange.records`),
    /// on the disk when it returns. Reads a file body twice: once for its digests, once to compress it.
    /// `beforeWrite` is told the file (its finished name) and offset the response will start at, and the two
    /// records' IDs, once they are known and before a byte is written: a caller that must never record an
    /// exchange twice across kills notes them there first (FarmWorker's WARCArchive.swift).
    @discardableResult
    public func write(_ exchange: WARCExchange,
                      beforeWrite: (Written) throws(WARCError) -> Void = { _ in })
        throws(WARCError) -> Written {
        let records = exchange.records()
        let written = try append(records) { (file, offset) throws(WARCError) in
            try beforeWrite(Written(file: file, offset: offset, responseID: records[0].id, requestID: records[1].id))
        }
        return Written(file: written.file, offset: written.offset, responseID: records[0].id, requestID: records[1].id)
    }

    /// Appends the records of `exchanges` in order, each response then its request, in one file, on the disk
    /// when it returns: a redirect's hops and the answer they led to (SPEC §18). `beforeWrite` as `write`'s,
    /// told every record's ID. A kill during the append can leave its first members whole and the rest torn:
    /// what a caller that records each URL once must allow for (FarmWorker's WARCArchive.swift does).
    @discardableResult
    public func write(_ exchanges: [WARCExchange],
                      beforeWrite: (WrittenGroup) throws(WARCError) -> Void = { _ in })
        throws(WARCError) -> WrittenGroup {
        let records = exchanges.flatMap { $0.records() }
        let ids = records.map(\.id)
        let written = try append(records) { (file, offset) throws(WARCError) in
            try beforeWrite(WrittenGroup(file: file, offset: offset, recordIDs: ids))
        }
        return WrittenGroup(file: written.file, offset: written.offset, recordIDs: ids)
    }

    /// Appends `records` (digests made first, warcinfo ID added), each as its own gzip member, in one file,
    /// on the disk when it returns; returns the file's name and where the first starts. `beforeWrite` is told
    /// both once the file is chosen (rotated, made) and before any byte of the records is written; what it
    /// throws ends the append with nothing written.
    ///
    /// Rotation: a member's compressed size is known only once it is written, and a record moved to the next
    /// file after that could sit in two files across a kill. So a new file is started when the current one
    /// plus zlib's bound on these members (their uncompressed size and a little) would pass `maxSize`: a file
    /// passes `maxSize` only when its one record alone does, and files of compressible pages close somewhat
    /// below it.
    @discardableResult
    public func append(_ records: [WARCRecord],
                       beforeWrite: (_ file: String, _ offset: Int) throws(WARCError) -> Void = { _, _ in })
        throws(WARCError) -> (file: String, offset: Int) {
        // The digests first: a body that cannot be read starts no file.
        var digested: [DigestedRecord] = []
        for record in records { digested.append(try record.digested()) }
        let bound = digested.reduce(0) { $0 + deflater.bound($1.uncompressedBound) }
        if let current = file, current.records > 1, current.end + bound > maxSize { try close() }
        let target = try currentFile()
        try beforeWrite(target.name, target.end)
        let offset = try target.append(digested.map { $0.prepared(warcinfoID: warcinfoID) }, with: deflater)
        return (target.name, offset)
    }

    /// The finished name of the file appended to now, if any (it ends `.open` until it is finished).
    public var currentName: String? { file?.name }

    /// Finishes the current file (renamed to `.warc.gz`, or removed when it holds only its warcinfo). The
    /// next append starts a new one.
    public func close() throws(WARCError) {
        guard let file else { return }
        self.file = nil
        warcinfoID = nil
        try file.finish()
    }

    /// The current file, made with its warcinfo record when there is none.
    private func currentFile() throws(WARCError) -> WARCFile {
        if let file { return file }
        let date = WARCDate.now()
        serial += 1
        let digits = String(serial)
        let name = "\(prefix)-\(date.compact)-\(String(repeating: "0", count: max(0, 5 - digits.count)) + digits)-\(nonce).warc.gz"
        let made = try WARCFile(directory: directory, name: name)
        let info = WARCRecord.warcinfo(filename: name, software: software, date: date)
        do {
            _ = try made.append([try info.digested().prepared(warcinfoID: nil)], with: deflater)
        } catch {
            try? FileSystem.unlink(made.openPath)
            throw error
        }
        file = made
        warcinfoID = info.id
        return made
    }
}
