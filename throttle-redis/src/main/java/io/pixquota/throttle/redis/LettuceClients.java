package io.pixquota.throttle.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.pixquota.throttle.redis.RedisAddress.Node;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Builds {@link RedisAddress#connectLettuce}'s Lettuce clients: the only class that loads Lettuce's configuration. */
final class LettuceClients {
  private LettuceClients() {}

  static AbstractRedisClient connect(RedisAddress address, Duration timeout) {
    Duration connect = timeout.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : timeout;
    SocketOptions socket = SocketOptions.builder().connectTimeout(connect).build();
    TimeoutOptions timeouts = TimeoutOptions.enabled(timeout);
    switch (address.topology()) {
      case SINGLE -> {
        RedisClient client = RedisClient.create(uri(address, address.nodes().get(0), timeout));
        client.setOptions(ClientOptions.builder().socketOptions(socket).timeoutOptions(timeouts)
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build());
        return client;
      }
      case SENTINEL -> {
        Node first = address.nodes().get(0);
        RedisURI.Builder b = RedisURI.Builder.sentinel(first.host(), first.port(), address.masterName());
        for (Node n : address.nodes().subList(1, address.nodes().size())) {
          b.withSentinel(n.host(), n.port());
        }
        RedisClient client = RedisClient.create(credentials(b, address).withDatabase(address.database())
            .withSsl(address.tls()).withTimeout(timeout).build());
        client.setOptions(ClientOptions.builder().socketOptions(socket).timeoutOptions(timeouts)
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build());
        return client;
      }
      case CLUSTER -> {
        List<RedisURI> seeds = new ArrayList<>();
        for (Node n : address.nodes()) {
          seeds.add(uri(address, n, timeout));
        }
        RedisClusterClient client = RedisClusterClient.create(seeds);
        client.setOptions(ClusterClientOptions.builder().socketOptions(socket).timeoutOptions(timeouts)
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                .enablePeriodicRefresh(Duration.ofSeconds(1)).enableAllAdaptiveRefreshTriggers().build())
            .build());
        return client;
      }
      default -> throw new IllegalStateException("unknown topology " + address.topology());
    }
  }

  private static RedisURI uri(RedisAddress address, Node node, Duration timeout) {
    RedisURI.Builder b = RedisURI.Builder.redis(node.host(), node.port()).withSsl(address.tls()).withTimeout(timeout);
    if (address.topology() != RedisAddress.Topology.CLUSTER) {
      b.withDatabase(address.database());
    }
    return credentials(b, address).build();
  }

  private static RedisURI.Builder credentials(RedisURI.Builder b, RedisAddress address) {
    if (address.password() == null) {
      return b;
    }
    return address.username() == null ? b.withPassword(address.password().toCharArray())
        : b.withAuthentication(address.username(), address.password().toCharArray());
  }
}
