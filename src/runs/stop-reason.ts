/** Why a run is interrupted when a client ended its job (or it was taken over): the executor lets it go. */
export const clientCancel = 'ended by a client';

/** Why a run is interrupted when it is not a client's cancel: the executor itself stops (the service shuts down). */
export const stopReason = 'executor stopping';
