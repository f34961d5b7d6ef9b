/** Why a run is interrupted when it is not a client's cancel: the executor itself stops (the service shuts down). */
export const stopReason = 'executor stopping';
