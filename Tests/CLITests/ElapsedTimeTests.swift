import Testing

@testable import KeelCLI

/// How the CLI prints a time taken and a count: as measured, never rounded up.
@Suite struct ElapsedTimeTests {
  @Test(
    "A time taken is tenths under ten seconds and whole seconds to the nearest after, never rounded up",
    arguments: [
      (Duration.milliseconds(2_100), "2.1 s"), (.milliseconds(1_040), "1.0 s"), (.milliseconds(9_940), "9.9 s"),
      (.milliseconds(9_960), "10 s"), (.milliseconds(12_400), "12 s"), (.milliseconds(125_600), "2 min 6 s"),
    ])
  func elapsed(duration: Duration, printed: String) {
    #expect(ProgressLine.elapsed(duration) == printed)
  }

  @Test("A count says its noun in the singular for one and in the plural otherwise")
  func counts() {
    #expect(counted(1, "image") == "1 image")
    #expect(counted(0, "image") == "0 images")
    #expect(counted(2, "upload") == "2 uploads")
  }
}
