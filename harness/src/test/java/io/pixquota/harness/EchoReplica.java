package io.pixquota.harness;

import java.util.Optional;

/** A replica for {@link ReplicaProcessTest}: READY, then for each GO a PROGRESS and a RESULT echoing it. */
public final class EchoReplica {
  private EchoReplica() {}

  public static void main(String[] args) throws Exception {
    ReplicaProtocol protocol = new ReplicaProtocol(System.out);
    System.out.println("setting up " + args[0]);
    protocol.ready(args[0]);
    Optional<ReplicaProtocol.Go> go;
    while ((go = protocol.next()).isPresent()) {
      protocol.progress(args[0], 1, 1);
      protocol.result("{\"at\":" + go.get().startAtEpochMs() + ",\"words\":\"" + String.join(",", go.get().words())
          + "\"}");
    }
    System.exit(3);
  }
}
