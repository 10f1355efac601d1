import Networking

extension ServerErrorDecoder where Self == JSONServerErrorDecoder {
  /// The Sendbird Platform API's errors: `{"error":true,"code":400201,"message":"…"}`, what ``UsersRouter``'s
  /// routes answer when they fail.
  public static var sendbird: JSONServerErrorDecoder { JSONServerErrorDecoder(codeField: "code", requiring: "error") }

  /// The chat backends' errors: `{"errorCode":"E05","message":"…"}`, what ``AuthRouter``, ``EventsRouter`` and
  /// ``ImagesRouter`` answer when they fail.
  public static var chatBackend: JSONServerErrorDecoder { JSONServerErrorDecoder(codeField: "errorCode") }
}
