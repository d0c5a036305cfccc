package rules

// All is every rule podlint has, sorted by ID. Adding a rule means adding it
// here; there is no registration by init().
var All = []*Rule{
	InvalidYAML,
	InvalidManifest,
	UnknownField,
	DuplicateKey,
	HelmTemplate,
	LimitExceeded,
	EmptyFile,
	UnusedSuppression,
	InternalError,
	DuplicateContainerName,
	SuppressionMissingReason,
	ProbeInvalidSuccessThreshold,
	ProbeHandlerInvalid,
	InvalidRestartPolicy,
	InitFailureFailsPod,
	InitWaitUnbounded,
	JobDeadlineBeforeRetries,
	ContainerRestartPolicyMismatch,
	InitContainerLifecycleFields,
	SidecarUnsupported,
	SidecarReadinessGatesPod,
	SidecarStartupOrder,
	StartupExceedsProgressDeadline,
	ProgressDeadlineInvalid,
	OrderedRolloutBlocks,
	ActiveDeadlineOnController,
}
