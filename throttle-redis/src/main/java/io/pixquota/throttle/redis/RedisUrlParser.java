package io.pixquota.throttle.redis;

import io.pixquota.throttle.support.Checks;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Reads the text of a {@link RedisAddress}. User info ({@code user:password@}) is everything between {@code ://} and
 * the last {@code @}, percent-decoded as RFC 3986 says ({@code %40} is '@', {@code %2F} is '/', {@code %25} is '%'),
 * so any password can be written; a password may also hold '@', '/' and spaces as they are. No message ever shows
 * any part of the user info: errors name what is wrong in the host, port or path, and show the address as
 * {@link RedisAddress#redacted}.
 */
final class RedisUrlParser {
  /** The longest host name DNS allows (RFC 1035): a longer one is a mistake, not a host. */
  private static final int MAX_HOST_LENGTH = 253;
  private static final Pattern HOST_NAME = Pattern.compile("[A-Za-z0-9_]([A-Za-z0-9_-]{0,62})"
      + "(\\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,62}))*\\.?");
  private static final Pattern IPV6 = Pattern.compile("\\[[0-9A-Fa-f:.]{2,45}(%[A-Za-z0-9_.~-]{1,32})?]");

  private RedisUrlParser() {}

  static RedisAddress parse(String url) {
    Checks.notBlank("redisUrl", url);
    String u = url.trim();
    int schemeEnd = u.indexOf("://");
    if (schemeEnd < 0) {
      throw bad(u, "must start with redis://, rediss://, redis-sentinel:// or redis-cluster://");
    }
    String scheme = u.substring(0, schemeEnd).toLowerCase(Locale.ROOT);
    boolean tls = scheme.startsWith("rediss");
    RedisAddress.Topology topology = switch (scheme) {
      case "redis", "rediss" -> RedisAddress.Topology.SINGLE;
      case "redis-sentinel", "rediss-sentinel" -> RedisAddress.Topology.SENTINEL;
      case "redis-cluster", "rediss-cluster" -> RedisAddress.Topology.CLUSTER;
      default -> throw bad(u, "must start with redis://, rediss://, redis-sentinel:// or redis-cluster://");
    };
    String rest = u.substring(schemeEnd + 3);
    String username = null;
    String password = null;
    int at = rest.lastIndexOf('@');
    if (at >= 0) {
      String userInfo = rest.substring(0, at);
      rest = rest.substring(at + 1);
      int colon = userInfo.indexOf(':');
      if (userInfo.isEmpty()) {
        throw bad(u, "has an '@' with nothing before it: drop the '@', or write :password@ before the host");
      }
      if (colon < 0) {
        throw bad(u, "names a user but no password: write user:password@ (or :password@ for the default user)");
      }
      username = decode(u, userInfo.substring(0, colon), "user name");
      password = decode(u, userInfo.substring(colon + 1), "password");
      if (password.isEmpty()) {
        throw bad(u, "has an empty password: write user:password@ (or no user info at all)");
      }
      username = username.isEmpty() ? null : username;
    }
    int slash = rest.indexOf('/');
    String authority = slash < 0 ? rest : rest.substring(0, slash);
    List<String> path = slash < 0 ? List.of() : List.of(rest.substring(slash + 1).split("/", -1));
    List<RedisAddress.Node> nodes = nodes(u, authority);
    String masterName = null;
    int database = 0;
    switch (topology) {
      case SINGLE -> {
        if (nodes.size() > 1) {
          throw bad(u, "names " + nodes.size() + " hosts; for several, use redis-sentinel:// or redis-cluster://");
        }
        database = database(u, path, 0);
      }
      case SENTINEL -> {
        if (path.isEmpty() || path.get(0).isBlank()) {
          throw bad(u, "has no master name (redis-sentinel://host:port,.../MASTER_NAME)");
        }
        masterName = path.get(0);
        database = database(u, path, 1);
      }
      case CLUSTER -> {
        if (!path.isEmpty() && !(path.size() == 1 && path.get(0).isEmpty())) {
          throw bad(u, "has a path, but a cluster has no database index");
        }
      }
    }
    return new RedisAddress(topology, tls, nodes, username, password, masterName, database);
  }

  /** RFC 3986 percent-decoding, as UTF-8; the value is never shown, only what is wrong with it. */
  private static String decode(String url, String encoded, String what) {
    if (encoded.indexOf('%') < 0) {
      return encoded;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    byte[] raw = encoded.getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < raw.length; i++) {
      if (raw[i] != '%') {
        bytes.write(raw[i]);
        continue;
      }
      int hi = i + 2 < raw.length ? Character.digit(raw[i + 1], 16) : -1;
      int lo = i + 2 < raw.length ? Character.digit(raw[i + 2], 16) : -1;
      if (hi < 0 || lo < 0) {
        throw bad(url, "has a " + what + " with a '%' not followed by two hex digits (write a '%' as %25)");
      }
      bytes.write(hi * 16 + lo);
      i += 2;
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }

  private static List<RedisAddress.Node> nodes(String url, String authority) {
    if (authority.isBlank()) {
      throw bad(url, "has no host");
    }
    List<RedisAddress.Node> nodes = new ArrayList<>();
    for (String hostPort : authority.split(",", -1)) {
      String host;
      String port = null;
      if (hostPort.startsWith("[")) { // an IPv6 literal: [::1] or [::1]:6380
        int close = hostPort.indexOf(']');
        host = close < 0 ? hostPort : hostPort.substring(0, close + 1);
        String after = close < 0 ? "" : hostPort.substring(close + 1);
        if (!IPV6.matcher(host).matches() || !(after.isEmpty() || after.startsWith(":"))) {
          throw bad(url, "host must be a name, an IPv4 address or an IPv6 address in brackets, but was '"
              + shown(host) + "'");
        }
        port = after.isEmpty() ? null : after.substring(1);
      } else {
        int colon = hostPort.lastIndexOf(':');
        host = colon < 0 ? hostPort : hostPort.substring(0, colon);
        port = colon < 0 ? null : hostPort.substring(colon + 1);
        if (host.isEmpty() || host.length() > MAX_HOST_LENGTH || !HOST_NAME.matcher(host).matches()) {
          throw bad(url, "host must be a name of at most 253 characters, an IPv4 address or an IPv6 address in "
              + "brackets, but was '" + shown(host) + "'");
        }
      }
      nodes.add(new RedisAddress.Node(host, port == null ? 6379 : port(url, port)));
    }
    return nodes;
  }

  private static int port(String url, String p) {
    if (!p.matches("[0-9]{1,5}") || Integer.parseInt(p) < 1 || Integer.parseInt(p) > 65535) {
      throw bad(url, "port must be within 1..65535, but was '" + shown(p) + "'");
    }
    return Integer.parseInt(p);
  }

  private static int database(String url, List<String> path, int index) {
    if (path.size() <= index || path.get(index).isEmpty()) {
      if (path.size() > index + 1) {
        throw bad(url, "has more path than a database index");
      }
      return 0;
    }
    String db = path.get(index);
    if (!db.matches("[0-9]{1,5}") || path.size() > index + 1) {
      throw bad(url, "database must be a whole number >= 0, but was '" + shown(db) + "'");
    }
    return Integer.parseInt(db);
  }

  /** A part of the address as an error shows it: at most 64 characters. */
  private static String shown(String part) {
    return part.length() > 64 ? part.substring(0, 64) + "... (" + part.length() + " characters)" : part;
  }

  private static IllegalArgumentException bad(String url, String what) {
    return new IllegalArgumentException("redisUrl " + what + ": '" + shown(RedisAddress.redacted(url)) + "'");
  }
}
