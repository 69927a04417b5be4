package io.pixquota.throttle.redis.internal;

/**
 * Redis's and its clients' failures (as {@link RedisFailure}s) in one short line a user can act on (the node
 * unreachable, the wrong kind of node, the Cluster down), and the error codes a script's caller tests for, worded as
 * Redis 6.2 and 7 word them.
 */
final class RedisErrors {
  private RedisErrors() {}

  /**
   * Whether a failure may pass by itself soon: the node unreachable or silent (a restart, a failover, a pause), or an
   * answer that says a failover is under way (a demoted master's READONLY, CLUSTERDOWN, LOADING, MASTERDOWN, TRYAGAIN),
   * rather than an answer asking again will not change (a refused password, the wrong kind of node, a bad script).
   */
  static boolean isPassing(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof RedisFailure f && f.kind() != RedisFailure.Kind.ANSWERED) {
        return f.kind() != RedisFailure.Kind.REFUSED; // refused at set-up: AUTH, SELECT, HELLO
      }
      if (c instanceof java.util.concurrent.TimeoutException) {
        return true;
      }
      String message = String.valueOf(c.getMessage());
      for (String code : new String[] {"READONLY", "CLUSTERDOWN", "LOADING", "MASTERDOWN", "TRYAGAIN"}) {
        if (hasErrorCode(message, code)) {
          return true;
        }
      }
    }
    return false;
  }

  static boolean isNoScript(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c.getMessage() != null && c.getMessage().contains("NOSCRIPT")) {
        return true;
      }
    }
    return false;
  }

  /**
   * The cause in one short line: Redisson's messages can quote the whole script, its "Unable to write command into
   * connection! Check CPU usage of the JVM..." means, to a user, that the Redis node cannot be reached, and the
   * errors of an address that names the wrong kind of node say which address to use instead.
   */
  static String describe(Throwable t) {
    if (t == null) {
      return "unknown";
    }
    if (t instanceof RedisFailure f && f.kind() == RedisFailure.Kind.UNREACHABLE) {
      return f.getMessage(); // worded by the client's adapter: unreachable, or silent while connecting
    }
    if (t instanceof RedisFailure f && f.kind() == RedisFailure.Kind.REFUSED) {
      return "Redis refused the connection: " + shorten(String.valueOf(f.getMessage()));
    }
    String message = String.valueOf(t.getMessage());
    if (message.contains("MOVED")) {
      return "the node is one node of a Redis Cluster and another node owns the key (MOVED): address the cluster "
          + "as redis-cluster://host:port,host:port,...";
    }
    if (hasErrorCode(message, "READONLY")) {
      return "the node is a read-only replica (READONLY): address its master, or the Sentinels that know it, as "
          + "redis-sentinel://host:port,host:port,.../MASTER_NAME";
    }
    if (hasErrorCode(message, "CLUSTERDOWN")) {
      return "the Redis Cluster is down (CLUSTERDOWN): a master failed and no replica has taken its slots yet";
    }
    return (t instanceof RedisFailure f ? f.origin() : t.getClass().getSimpleName()) + ": " + shorten(message);
  }

  /**
   * Whether Redis's error is {@code code}: Redis 7 puts the code of an error raised inside a script first
   * ({@code READONLY You can't write...}), Redis 6.2 wraps it ({@code ERR Error running script ...: -READONLY ...}).
   */
  static boolean hasErrorCode(String message, String code) {
    return message.startsWith(code + " ") || message.contains(": -" + code + " ");
  }

  /** A client's message without the channel, the command's parameters (a script, a password) and the future. */
  static String shorten(String message) {
    for (String tail : new String[] {". channel:", ", params:"}) {
      int end = message.indexOf(tail);
      message = end > 0 ? message.substring(0, end) : message;
    }
    return message.length() > 300 ? message.substring(0, 300) + "..." : message;
  }
}
