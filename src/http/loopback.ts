/** A loopback host name (`localhost`, `127.x.x.x`, `[::1]`): only this machine reaches it. */
export const isLoopbackHost = (hostname: string) => /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/.test(hostname);
