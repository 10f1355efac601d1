/// `count` and `noun`, the noun in the plural unless the count is one: `1 image`, `2 images`, `0 events`.
func counted(_ count: Int, _ noun: String, plural: String? = nil) -> String {
  "\(count) \(count == 1 ? noun : plural ?? noun + "s")"
}
