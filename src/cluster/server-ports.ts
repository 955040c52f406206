/** The ports of the four services in one server process, as the server's config template names them. */
export interface ServerPorts {
  FRONTEND_GRPC_PORT: number;
  FRONTEND_HTTP_PORT: number;
  FRONTEND_MEMBERSHIP_PORT: number;
  HISTORY_GRPC_PORT: number;
  HISTORY_MEMBERSHIP_PORT: number;
  MATCHING_GRPC_PORT: number;
  MATCHING_MEMBERSHIP_PORT: number;
  WORKER_GRPC_PORT: number;
  WORKER_MEMBERSHIP_PORT: number;
}

/** Temporal's own layout around the frontend port (7233 → 7234, 7235, 7239, 7243, 6933...). */
export function portsAround(frontend: number): ServerPorts {
  return {
    FRONTEND_GRPC_PORT: frontend,
    FRONTEND_HTTP_PORT: frontend + 10,
    FRONTEND_MEMBERSHIP_PORT: frontend - 300,
    HISTORY_GRPC_PORT: frontend + 1,
    HISTORY_MEMBERSHIP_PORT: frontend - 299,
    MATCHING_GRPC_PORT: frontend + 2,
    MATCHING_MEMBERSHIP_PORT: frontend - 298,
    WORKER_GRPC_PORT: frontend + 6,
    WORKER_MEMBERSHIP_PORT: frontend - 294,
  };
}
