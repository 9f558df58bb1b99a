/**
 * The fetch every outbound call goes through (a strategy's webhook, a check, a forge call):
 * injected, so the address guard's fetch runs in production and tests stand in for the network.
 */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;
