// A probe for how late the test process's cooperative pool runs a timer's continuation while
// the whole suite runs beside it: the figures in the Makefile's `test` comment came from it.
// Not built by default. To use it, copy it into a test target, build, and run the suite:
//
//     cp Benchmarks/probes/PoolProbe.swift Tests/HearthBusTests/ZZPoolProbe.swift
//     swift build --build-tests
//     SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=8 PROBE_S=40 swift test --skip-build | grep POOLPROBE
//     rm Tests/HearthBusTests/ZZPoolProbe.swift
//
// It sleeps 20 ms again and again for PROBE_S seconds (default 25) and prints each sleep that
// came back more than 0.3 s late, as "<CLOCK_MONOTONIC seconds>+<lateness>", so the stretch can
// be matched with `perf record -k CLOCK_MONOTONIC -g -p <test process>` to see what held the pool.
import Foundation
import Testing

@Test("pool probe: how late a 20 ms sleep comes back beside the suite")
func poolProbe() async {
    func monotonic() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
    let seconds = Int(ProcessInfo.processInfo.environment["PROBE_S"] ?? "") ?? 25
    let start = ContinuousClock.now
    var stalls: [String] = []
    while ContinuousClock.now - start < .seconds(seconds) {
        let before = monotonic()
        try? await Task.sleep(for: .milliseconds(20))
        let late = monotonic() - before - 0.020
        if late > 0.3 { stalls.append(String(format: "%.3f+%.3f", before, late)) }
    }
    print("POOLPROBE stalls: " + (stalls.isEmpty ? "none over 0.3 s" : stalls.joined(separator: " ")))
}
