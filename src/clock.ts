/** Time source; tests substitute their own to move time forward (expiry, billing periods). */
export type Clock = () => Date;
export const systemClock: Clock = () => new Date();
