import FarmJSON
import FarmTestSupport
import Foundation
import Testing

/// `GET /metrics` of `farm serve`: the page `farm metrics` prints, under the server's guards, accepted by
/// promtool, and scraped by a real Prometheus server that then answers a query with the farm's numbers.
@Suite(.serialized) struct ServeMetricsTests {
    @Test func metricsArePrometheusTextUnderTheServersGuards() throws {
        let farm = try RunningFarm()
        try farm.addImages("Photos", count: 3, width: 96, height: 64, missing: [1])
        try farm.start(workers: 1)
        #expect(try farm.farm(["wait", "--timeout", "120"]).status == 1, "one resource fails (404), the rest are done")
        let serve = try ServeProcess(spool: farm.spool.root)

        let reply = try serve.get("/metrics")
        #expect(reply.status == 200, "\(reply.status) \(reply.text) \(reply.curlError)")
        #expect(reply.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        let samples = Prometheus.samples(reply.text)
        #expect(samples["farm_resources_done"] == 2 && samples[#"farm_resources_failed{reason="HTTP 404"}"#] == 1,
                "\(reply.text)")
        let check = try Prometheus.check(reply.text)
        #expect(check.status == 0, "promtool check metrics: \(check.output)\n\(reply.text)")

        // The guards of every route: the method, and the Host a page of another site would send.
        let post = try HTTP.send(serve.base + "/metrics", method: "POST")
        #expect(post.status == 405 && post.headers["allow"] == "GET")
        let port = serve.authority.split(separator: ":")[1]
        let rebound = try serve.get("/metrics", headers: ["Host": "evil.example:\(port)"])
        #expect(rebound.status == 403, "\(rebound.status) \(rebound.text)")
    }

    @Test func aPrometheusServerScrapesTheDoneCounter() throws {
        let farm = try RunningFarm()
        try farm.addImages("Photos", count: 3, width: 96, height: 64)
        try farm.start(workers: 2)
        #expect(try farm.farm(["wait", "--timeout", "120"]).status == 0)
        let serve = try ServeProcess(spool: farm.spool.root)
        let prometheus = try PrometheusServer(scraping: serve.authority)

        // Prometheus starts, scrapes every second, and answers the query with the value it scraped.
        var answer = ""
        let answered = poll(timeout: 90, every: 0.5) {
            guard prometheus.isRunning else { return true }
            answer = (try? HTTP.send(prometheus.base + "/api/v1/query?query=farm_resources_done").text) ?? ""
            return Self.value(of: answer) == "3"
        }
        #expect(answered && prometheus.isRunning, "Prometheus answered \(answer)\n\(prometheus.log)")
        let up = try HTTP.send(prometheus.base + "/api/v1/query?query=up").text
        #expect(Self.value(of: up) == "1", "the scrape of farm serve failed: \(up)")
    }

    /// The value of the first sample of a Prometheus query's JSON answer, e.g. "3".
    private static func value(of answer: String) -> String? {
        guard let json = try? JSONParser.parse(Array(answer.utf8)),
              case .array(let value)? = try? JSONPointer("/data/result/0/value").values(in: json).first,
              value.count == 2, case .string(let text) = value[1] else { return nil }
        return text
    }
}
