import FarmTestSupport
import Foundation
import Testing

/// SPEC §12: `farm serve` off this machine. A real `farm serve` on every address, asked through curl on
/// 127.0.0.1: no password, no server; with one, every request needs it, and guessing is cut off. HTTPS
/// with a certificate made for the test by openssl.
@Suite struct ServeAccessTests {
    static let password = "correct horse battery staple"

    @Test func anAddressOtherMachinesReachNeedsAPasswordFile() throws {
        let dir = TemporaryDirectory("farm-serve-access")
        let spool = dir.appending("spool")
        let refusals: [(arguments: [String], says: String)] = [
            (["--host", "0.0.0.0"], "--password-file"),
            (["--host", "0.0.0.0", "--password-file", dir.appending("missing")], "cannot read the password file"),
            (["--tls-cert", dir.appending("missing.pem"), "--tls-key", dir.appending("missing.key")],
             "cannot read the certificate"),
        ]
        for (arguments, says) in refusals {
            let refused = try run("farm", ["serve", "--port", "0", "--spool", spool] + arguments, timeout: 60)
            #expect(refused.status == 2, "\(arguments): \(refused)")
            let lines = refused.error.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains(says), "\(arguments): \(refused.error)")
        }
    }

    @Test func everyRequestNeedsThePasswordAndGuessesAreCutOff() throws {
        let dir = TemporaryDirectory("farm-serve-access")
        let passwordFile = dir.appending("password")
        try (Self.password + "\n").write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let serve = try ServeProcess(spool: dir.appending("spool"), arguments: ["--host", "0.0.0.0", "--password-file", passwordFile])
        let right = Self.basic("farm", Self.password), wrong = Self.basic("farm", "Tr0ub4dor&3")

        for path in ["/", "/api/status", "/metrics", "/api/events"] {
            let bare = try serve.get(path)
            #expect(bare.status == 401, "\(path): \(bare.status)")
            #expect(bare.headers["www-authenticate"]?.hasPrefix("Basic realm=\"farm\"") == true, "\(bare.headers)")
        }
        #expect(try serve.get("/api/status", headers: right).status == 200)
        #expect(try serve.get("/api/status", headers: Self.basic("admin", Self.password)).status == 401)
        // The page's own requests work with the password: its token, then a change of the farm.
        let page = try serve.get("/", headers: right)
        let token = try #require(page.text.firstMatch(of: /name="farm-token" content="([0-9a-f]+)"/)?.1)
        let paused = try serve.post("/api/pause", token: String(token), headers: right)
        #expect(paused.status == 200, "\(paused.text)")
        #expect(try serve.post("/api/resume", token: String(token)).status == 401)

        // Ten failures a minute are let by as mistakes (the wrong user above was one); past that the address
        // waits, whatever it sends.
        for attempt in 2...11 {
            #expect(try serve.get("/api/status", headers: wrong).status == 401, "attempt \(attempt)")
        }
        for headers in [right, wrong, [:]] {
            let cut = try serve.get("/api/status", headers: headers)
            #expect(cut.status == 429, "\(cut.status) \(cut.text)")
        }
        // The password is in no process's command line.
        let commandLine = try String(contentsOfFile: "/proc/\(serve.child.pid)/cmdline", encoding: .utf8)
        #expect(!commandLine.contains(Self.password) && commandLine.contains(passwordFile))
    }

    @Test func servesHTTPSWithTheGivenCertificate() throws {
        let dir = TemporaryDirectory("farm-serve-tls")
        let (certificate, key) = (dir.appending("cert.pem"), dir.appending("key.pem"))
        let made = try run("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
            "-keyout", key, "-out", certificate, "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ], timeout: 60)
        try #require(made.status == 0, "openssl: \(made.error)")
        let passwordFile = dir.appending("password")
        try Self.password.write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let serve = try ServeProcess(spool: dir.appending("spool"), arguments: [
            "--host", "0.0.0.0", "--password-file", passwordFile, "--tls-cert", certificate, "--tls-key", key,
        ])
        #expect(serve.base.hasPrefix("https://127.0.0.1:"), "\(serve.base)")
        let right = Self.basic("farm", Self.password)
        let status = try HTTP.send(serve.base + "/api/status", headers: right, caFile: certificate)
        #expect(status.status == 200, "\(status.curlError)")
        // The page's Origin is https: a change from it is the page's own.
        let page = try HTTP.send(serve.base + "/", headers: right, caFile: certificate)
        let token = try #require(page.text.firstMatch(of: /name="farm-token" content="([0-9a-f]+)"/)?.1)
        var change = right
        change["X-Farm-Token"] = String(token)
        change["Origin"] = serve.base
        let paused = try HTTP.send(serve.base + "/api/pause", method: "POST", headers: change, body: "{}", caFile: certificate)
        #expect(paused.status == 200, "\(paused.text)")
        // Plain HTTP on that port gets no page, and a client that does not trust the certificate refuses it.
        let plain = try HTTP.send(serve.base.replacingOccurrences(of: "https://", with: "http://") + "/api/status", headers: right)
        #expect(plain.status != 200, "\(plain.status)")
        #expect(try HTTP.send(serve.base + "/api/status", headers: right).status == 0)
    }

    @Test func theRightPasswordWorksInARealBrowser() throws {
        let farm = try RunningFarm()
        try farm.addImages("Photos", count: 2)
        let passwordFile = farm.dir.appending("password")
        try (Self.password + "\n").write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let serve = try ServeProcess(spool: farm.spool.root,
                                     arguments: ["--host", "0.0.0.0", "--password-file", passwordFile])
        let browser = try Chromium()
        defer { browser.close() }
        let listed = "document.querySelectorAll('#lists tbody tr').length === 1"
            + " && document.querySelector('#lists tbody tr').cells[0].textContent === 'Photos.json'"

        // Without the password the browser gets the 401, not the page.
        try browser.navigate(serve.base + "/")
        #expect(browser.waitFor("document.readyState === 'complete' && document.body !== null"))
        #expect(try browser.evaluate("document.getElementById('lists') === null", as: Bool.self) == true)

        // With it, as a user's browser sends it once asked: the page, its live lists and its buttons work.
        try browser.setExtraHTTPHeaders(Self.basic("farm", Self.password))
        try browser.navigate(serve.base + "/")
        #expect(browser.waitFor(listed), "\(String(describing: try? browser.evaluate("document.body.innerText")))")
        #expect(browser.waitFor("!document.getElementById('pause').disabled"))
        try browser.click("#pause")
        #expect(poll(timeout: 10) { farm.spool.control.isPaused }, "the page's Pause did not pause the farm")
    }

    private static func basic(_ user: String, _ password: String) -> [String: String] {
        ["Authorization": "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()]
    }
}
