import Domain
import Persistence
import Realtime

/// How a ``ChatService`` pages, catches up, keeps and retries; the defaults suit a phone app.
public struct ChatConfiguration: Sendable {
  /// How many messages a conversation shows at first, and how many more each ``ChatConversation/loadOlder()`` adds;
  /// 50 by default.
  public var pageSize: Int
  /// How many messages each catch-up request asks for, 1 to 100 (the backend's most); 100 by default.
  public var catchUpPageSize: Int
  /// The gap bound: a catch-up that has read this many messages and is still not at the newest drops the
  /// conversation's stored messages and starts again from the newest page, rather than paging on; the older ones
  /// come back by paging back. 2,000 by default.
  public var maxCatchUpMessages: Int
  /// The local store's size limit, in bytes, past which the conversations viewed least recently are evicted; 256 MB by
  /// default, as Stream's chat SDK.
  public var storeMaxSize: Int64
  /// The most messages the outbox holds unsent; a send past it fails with `ChatError.Kind.storage`. 10,000 by
  /// default.
  public var outboxCapacity: Int
  /// What a message the outbox has taken survives before it is sent: by default the app being killed or crashing at
  /// any instant (`Durability.survivesCrash`, as the rest of the store), which costs a few microseconds a message;
  /// `Durability.survivesPowerLoss` adds an `fsync` to every message sent, a quarter of a millisecond on a fast
  /// disk and several on a slow phone's flash, for the messages of the last moments before a power loss.
  public var outboxDurability: Durability
  /// The first wait before the outbox sends again after a network failure, doubled after each failure up to
  /// ``maxRetryDelay``; a network that comes back cuts the wait short. 1 second by default.
  public var retryDelay: Duration
  /// The longest wait between two outbox attempts; 30 seconds by default.
  public var maxRetryDelay: Duration
  /// How the socket reconnects after a lost connection.
  public var reconnection: ReconnectionPolicy
  /// The limits of the account's image cache (``ChatService/imageLoader``): memory, disk, and how long an image with
  /// no `max-age` stays fresh.
  public var imageCacheLimits: ImageCacheLimits
  /// The most bytes of downloaded files each account keeps for the next download of the same file
  /// (``ChatService/download(_:to:progress:)``); 256 MB by default, 0 to keep none.
  public var fileCacheSize: Int
  /// How often a live conversation that heard no push in the last interval, its socket connected, asks the server with
  /// one small request whether it missed a message (a push the server lost without dropping the connection): such a
  /// push is found within two intervals. At most 30 seconds, 15 by default.
  public var silenceCheckInterval: Duration
  /// How long another member shows as typing after the last word that they were (``ChatConversation/typingUserIDs``),
  /// unless they stop or send first; 5 seconds by default.
  public var typingTimeout: Duration

  /// A configuration; every value has the default its property describes.
  public init(
    pageSize: Int = 50, catchUpPageSize: Int = 100, maxCatchUpMessages: Int = 2_000,
    storeMaxSize: Int64 = 256_000_000, outboxCapacity: Int = 10_000, retryDelay: Duration = .seconds(1),
    maxRetryDelay: Duration = .seconds(30), reconnection: ReconnectionPolicy = ReconnectionPolicy(),
    silenceCheckInterval: Duration = .seconds(15), imageCacheLimits: ImageCacheLimits = ImageCacheLimits(),
    typingTimeout: Duration = .seconds(5), fileCacheSize: Int = 256_000_000,
    outboxDurability: Durability = .survivesCrash
  ) {
    self.pageSize = pageSize
    self.catchUpPageSize = catchUpPageSize
    self.maxCatchUpMessages = maxCatchUpMessages
    self.storeMaxSize = storeMaxSize
    self.outboxCapacity = outboxCapacity
    self.retryDelay = retryDelay
    self.maxRetryDelay = maxRetryDelay
    self.reconnection = reconnection
    self.silenceCheckInterval = silenceCheckInterval
    self.imageCacheLimits = imageCacheLimits
    self.typingTimeout = typingTimeout
    self.fileCacheSize = fileCacheSize
    self.outboxDurability = outboxDurability
  }

  /// The values clamped to what works: pages of 1 to 100, a gap bound of at least one page, delays of at least zero,
  /// a silence check every 10 ms to 30 s, a typing timeout of at least 10 ms (for tests; an app keeps seconds).
  var clamped: ChatConfiguration {
    var copy = self
    copy.pageSize = min(max(pageSize, 1), 1_000)
    copy.catchUpPageSize = min(max(catchUpPageSize, 1), 100)
    copy.maxCatchUpMessages = max(maxCatchUpMessages, copy.catchUpPageSize)
    copy.outboxCapacity = max(outboxCapacity, 1)
    copy.retryDelay = max(retryDelay, .zero)
    copy.maxRetryDelay = max(maxRetryDelay, copy.retryDelay)
    copy.silenceCheckInterval = min(max(silenceCheckInterval, .milliseconds(10)), .seconds(30))
    copy.typingTimeout = max(typingTimeout, .milliseconds(10))
    return copy
  }
}
