/// A user, as the Sendbird-compatible surface names it (REQUIREMENTS U12): Keel's ``User`` under the SDK's name, so
/// that a user from either surface is the same value, with no conversion between them.
public typealias SBUser = User
