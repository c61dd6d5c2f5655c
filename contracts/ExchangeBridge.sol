// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title ExchangeBridge
/// @notice The exchange chain's bridge on the external EVM chain (issue 22, decision 81;
///         issue 37, decisions 148-151). Deposits: a user approves USDC to this contract and
///         calls `deposit(recipient, amount)`; the contract pulls the USDC and emits `Deposit`
///         with a sequential id (0, 1, 2, ...) that the exchange chain's validators watch and
///         credit once. Withdrawals, in two steps: (1) `queueWithdrawal` records a payout
///         (withdrawal id, recipient, amount, validUntil) only with ECDSA signatures of
///         validators holding more than 2/3 of the current power; each id is accepted at most
///         once and becomes payable `disputePeriod` seconds later; (2) `executeWithdrawal`, by
///         anyone, pays it after that time. Neither step is taken after `validUntil` (Unix
///         seconds), so the exchange chain can refund an unpaid one safely (decision 83).
///
///         One bridge, one exchange chain (decision 150): the constructor fixes the exchange
///         chain's id and genesis hash, and every signed message (withdrawal, validator set,
///         owner set, owner action) is bound to (external chain id, this address, exchange
///         chain id, exchange genesis hash). Nothing can change that binding.
///
///         The signers follow the chain (decision 148): `updateValidatorSet` takes a new set
///         signed by more than 2/3 of the current power with a strictly higher set nonce; it
///         becomes pending and takes effect `disputePeriod` seconds later (`activateValidatorSet`
///         by anyone, or lazily by the next queueing or set update), so the outgoing set can
///         still pause during the delay. A second update while one is pending and not due is
///         refused (`SetUpdatePending`); a due one is applied first and the new one is checked
///         against it.
///
///         The owners are the chain's owners (decision 149): an owner set reaches the contract
///         only as the chain's decision, signed by more than 2/3 of the validators' power
///         (`updateOwners`), timelocked the same way. The owners' own path to the validator set
///         (`setValidators`) is a custody change: it waits `ownerSetDelay` (the exchange chain's
///         high-impact timelock, decision 153), and any locker can cancel it during the wait.
///         Immediate owner actions are defensive only: `unpause`, `cancelWithdrawal`.
///         Lockers are the current set's validators (and the owners): `pause` stops deposits,
///         queueing, payouts and every pending change from taking effect.
/// @dev Checks-effects-interactions everywhere plus a reentrancy guard; token calls are
///      checked (call success and, when data is returned, a true boolean). Signature lists
///      are ordered by strictly ascending signer address, so a signer counts once. Signatures
///      are 65 bytes (r, s, v) over the EIP-191 "\x19Ethereum Signed Message:\n32" hash of
///      the 32-byte digest (what `personal_sign`/viem `signMessage({message: {raw}})` sign),
///      low s only.
contract ExchangeBridge {
    /// @notice Domain tags of the signed messages (one kind of signature is never another).
    bytes32 public constant WITHDRAWAL_TAG = keccak256("ExchangeBridge.Withdrawal.v3");
    bytes32 public constant VALIDATOR_SET_TAG = keccak256("ExchangeBridge.ValidatorSet.v1");
    bytes32 public constant OWNERS_TAG = keccak256("ExchangeBridge.Owners.v1");
    bytes32 public constant OWNER_ACTION_TAG = keccak256("ExchangeBridge.OwnerAction.v2");
    /// @notice Owner action kinds, hashed with their arguments into the owner digest.
    bytes32 public constant ACTION_UNPAUSE = keccak256("unpause");
    bytes32 public constant ACTION_SET_VALIDATORS = keccak256("setValidators");
    bytes32 public constant ACTION_CANCEL_WITHDRAWAL = keccak256("cancelWithdrawal");

    /// @dev secp256k1 n / 2: a signature with a higher s is the malleated twin of a low-s one.
    uint256 private constant HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;
    /// @dev Bounds every loop over a set.
    uint256 public constant MAX_SET_SIZE = 128;

    enum WithdrawalState {
        None,
        Queued,
        Paid,
        Cancelled
    }

    struct Withdrawal {
        address recipient;
        uint64 readyAt;
        WithdrawalState state;
        uint256 amount;
        /// @dev The last second (block.timestamp) at which it may be queued or paid.
        uint64 validUntil;
    }

    /// @notice The bridged token (USDC, 6 decimals).
    address public immutable usdc;
    /// @notice Seconds between a withdrawal's queueing and the earliest time it can be paid;
    ///         also the delay before a validator set or owner set takes effect.
    uint256 public immutable disputePeriod;
    /// @notice Seconds a validator set proposed by the owners waits before it takes effect: a
    ///         custody change, so the exchange chain's high-impact timelock (7 days on its
    ///         networks), never less than `disputePeriod` (decision 153).
    uint256 public immutable ownerSetDelay;
    /// @notice The exchange chain this bridge serves: its chain id and genesis hash, bound into every signed message.
    uint256 public immutable exchangeChainId;
    bytes32 public immutable exchangeGenesisHash;

    /// @notice The id the next deposit gets; deposits are numbered 0, 1, 2, ...
    uint256 public nextDepositId;
    /// @notice True while paused: no deposit, no queueing, no payout, no pending change takes effect.
    bool public paused;

    address[] private _validators;
    /// @notice Voting power of each validator (0: not a validator).
    mapping(address => uint256) public powerOf;
    /// @notice Sum of the validators' powers.
    uint256 public totalPower;
    /// @notice The nonce of the set in force (0: the constructor's).
    uint256 public validatorSetNonce;

    /// @dev The set waiting for its delay (activeAt 0: none).
    address[] private _pendingValidators;
    uint256[] private _pendingPowers;
    /// @notice The pending set's nonce, the second it may take effect (0: nothing pending), and whether the owners proposed it.
    uint256 public pendingSetNonce;
    uint256 public pendingSetActiveAt;
    bool public pendingSetByOwners;

    address[] private _owners;
    /// @notice True for each owner.
    mapping(address => bool) public isOwner;
    /// @notice Distinct owner signatures an owner action needs.
    uint256 public ownerThreshold;
    /// @notice Sequence number of the next owner action (signed into its digest: no replay).
    uint256 public ownerNonce;
    /// @notice The nonce of the owner set in force (0: the constructor's).
    uint256 public ownerSetNonce;

    /// @dev The owner set waiting for its delay (activeAt 0: none).
    address[] private _pendingOwners;
    uint256 public pendingOwnerThreshold;
    uint256 public pendingOwnerSetNonce;
    uint256 public pendingOwnersActiveAt;

    /// @notice Each withdrawal id's record.
    mapping(uint256 => Withdrawal) public withdrawals;

    uint256 private _lock = 1;

    /// @notice A deposit: `amount` USDC base units pulled from `depositor`, to credit `recipient` on the exchange chain.
    event Deposit(uint256 indexed depositId, address indexed depositor, address indexed recipient, uint256 amount);
    /// @notice A withdrawal accepted with a validator quorum, payable from `readyAt` up to `validUntil` (unix seconds).
    event WithdrawalQueued(uint256 indexed withdrawalId, address indexed recipient, uint256 amount, uint256 readyAt, uint256 validUntil);
    /// @notice A queued withdrawal paid.
    event WithdrawalPaid(uint256 indexed withdrawalId, address indexed recipient, uint256 amount);
    /// @notice A queued withdrawal cancelled by the owners (it can never be paid or queued again).
    event WithdrawalCancelled(uint256 indexed withdrawalId);
    /// @notice Paused by a validator or an owner.
    event Paused(address indexed by);
    /// @notice Unpaused by the owners.
    event Unpaused(uint256 ownerNonce);
    /// @notice A new validator set accepted, taking effect at `activeAt` (unix seconds) unless paused or cancelled.
    event ValidatorSetProposed(uint256 indexed setNonce, address[] validators, uint256[] powers, uint256 activeAt);
    /// @notice A pending validator set proposed by the owners, cancelled by a locker.
    event ValidatorSetCancelled(uint256 indexed setNonce, address indexed by);
    /// @notice The validator set replaced (a pending set took effect).
    event ValidatorSetChanged(address[] validators, uint256[] powers, uint256 totalPower);
    /// @notice A new owner set accepted (the exchange chain's SetOwners), taking effect at `activeAt`.
    event OwnersProposed(uint256 indexed ownerNonce, address[] owners, uint256 threshold, uint256 activeAt);
    /// @notice The owner set replaced.
    event OwnersChanged(address[] owners, uint256 threshold);

    error IsPaused();
    error NotLocker();
    error NotPaused();
    error Reentrancy();
    error ZeroAddress();
    error ZeroAmount();
    error BadSet();
    error BadSignature();
    error SignersNotAscending();
    error UnknownSigner(address signer);
    error QuorumNotReached(uint256 signedPower, uint256 totalPower);
    error OwnerThresholdNotReached(uint256 signers, uint256 threshold);
    error WithdrawalExists(uint256 withdrawalId);
    error WithdrawalNotQueued(uint256 withdrawalId);
    error DisputePeriodActive(uint256 readyAt);
    error WithdrawalExpired(uint256 validUntil);
    error TokenCallFailed();
    error StaleNonce(uint256 nonce, uint256 mustExceed);
    error SetUpdatePending(uint256 setNonce, uint256 activeAt);
    error NothingPending();
    error NotDue(uint256 activeAt);

    modifier whenNotPaused() {
        if (paused) revert IsPaused();
        _;
    }

    modifier nonReentrant() {
        if (_lock != 1) revert Reentrancy();
        _lock = 2;
        _;
        _lock = 1;
    }

    /// @param usdc_ The bridged token (must be a contract).
    /// @param disputePeriod_ Seconds a queued withdrawal (or a new set) waits before it can be paid (take effect).
    /// @param ownerSetDelay_ Seconds an owners' validator set waits before it takes effect (>= disputePeriod_).
    /// @param exchangeChainId_ The exchange chain's id (genesis chainId).
    /// @param exchangeGenesisHash_ The exchange chain's genesis hash (keccak256 of its canonical genesis).
    /// @param validators_ The validators' addresses, strictly ascending.
    /// @param powers_ Their powers, each > 0.
    /// @param owners_ The owners' addresses, strictly ascending.
    /// @param ownerThreshold_ Distinct owner signatures an owner action needs (1..owners).
    constructor(
        address usdc_,
        uint256 disputePeriod_,
        uint256 ownerSetDelay_,
        uint256 exchangeChainId_,
        bytes32 exchangeGenesisHash_,
        address[] memory validators_,
        uint256[] memory powers_,
        address[] memory owners_,
        uint256 ownerThreshold_
    ) {
        if (usdc_.code.length == 0) revert ZeroAddress();
        if (exchangeChainId_ == 0 || exchangeGenesisHash_ == bytes32(0)) revert BadSet();
        if (ownerSetDelay_ < disputePeriod_) revert BadSet();
        usdc = usdc_;
        disputePeriod = disputePeriod_;
        ownerSetDelay = ownerSetDelay_;
        exchangeChainId = exchangeChainId_;
        exchangeGenesisHash = exchangeGenesisHash_;
        _setOwners(owners_, ownerThreshold_);
        _setValidators(validators_, powers_);
    }

    // ---------------------------------------------------------------- deposits

    /// @notice Pulls `amount` USDC from the caller (approve this contract first) and emits
    ///         `Deposit` with the next sequential id, to credit `recipient` on the exchange chain.
    /// @return depositId The deposit's id.
    function deposit(address recipient, uint256 amount) external whenNotPaused nonReentrant returns (uint256 depositId) {
        if (recipient == address(0)) revert ZeroAddress();
        if (amount == 0) revert ZeroAmount();
        depositId = nextDepositId;
        nextDepositId = depositId + 1;
        _callToken(abi.encodeWithSelector(0x23b872dd, msg.sender, address(this), amount)); // transferFrom
        emit Deposit(depositId, msg.sender, recipient, amount);
    }

    // ------------------------------------------------------------- withdrawals

    /// @notice The 32-byte digest validators sign (under the EIP-191 prefix) for a withdrawal:
    ///         keccak256(abi.encode(WITHDRAWAL_TAG, chainid, this, exchangeChainId, exchangeGenesisHash,
    ///         withdrawalId, recipient, amount, validUntil)).
    function withdrawalDigest(uint256 withdrawalId, address recipient, uint256 amount, uint256 validUntil)
        public
        view
        returns (bytes32)
    {
        return keccak256(
            abi.encode(
                WITHDRAWAL_TAG, block.chainid, address(this), exchangeChainId, exchangeGenesisHash, withdrawalId, recipient, amount, validUntil
            )
        );
    }

    /// @notice Step 1: records withdrawal `withdrawalId` (to `recipient`, `amount` USDC base units,
    ///         valid until `validUntil` unix seconds) given signatures of validators holding more
    ///         than 2/3 of the power of the set in force (a pending set that is due is applied
    ///         first), ordered by ascending signer address. Payable `disputePeriod` seconds from
    ///         now and up to `validUntil`. Anyone may submit.
    function queueWithdrawal(
        uint256 withdrawalId,
        address recipient,
        uint256 amount,
        uint256 validUntil,
        bytes[] calldata signatures
    ) external whenNotPaused {
        if (recipient == address(0)) revert ZeroAddress();
        if (amount == 0) revert ZeroAmount();
        if (block.timestamp > validUntil) revert WithdrawalExpired(validUntil);
        Withdrawal storage w = withdrawals[withdrawalId];
        if (w.state != WithdrawalState.None) revert WithdrawalExists(withdrawalId);
        _applyDueSet();
        _checkValidatorQuorum(withdrawalDigest(withdrawalId, recipient, amount, validUntil), signatures);
        uint64 readyAt = uint64(block.timestamp + disputePeriod);
        w.recipient = recipient;
        w.amount = amount;
        w.readyAt = readyAt;
        // validUntil >= block.timestamp here; past 2^64 - 1 seconds it means "never expires" in practice.
        w.validUntil = validUntil > type(uint64).max ? type(uint64).max : uint64(validUntil);
        w.state = WithdrawalState.Queued;
        emit WithdrawalQueued(withdrawalId, recipient, amount, readyAt, validUntil);
    }

    /// @notice Step 2: pays queued withdrawal `withdrawalId` once its dispute period is over and
    ///         not after its `validUntil`. Anyone may call.
    function executeWithdrawal(uint256 withdrawalId) external whenNotPaused nonReentrant {
        Withdrawal storage w = withdrawals[withdrawalId];
        if (w.state != WithdrawalState.Queued) revert WithdrawalNotQueued(withdrawalId);
        if (block.timestamp < w.readyAt) revert DisputePeriodActive(w.readyAt);
        if (block.timestamp > w.validUntil) revert WithdrawalExpired(w.validUntil);
        w.state = WithdrawalState.Paid;
        address recipient = w.recipient;
        uint256 amount = w.amount;
        _callToken(abi.encodeWithSelector(0xa9059cbb, recipient, amount)); // transfer
        emit WithdrawalPaid(withdrawalId, recipient, amount);
    }

    // ------------------------------------------------------------ validator set

    /// @notice The digest validators sign for the set `setNonce` (`validators_` ascending, `powers_`):
    ///         keccak256(abi.encode(VALIDATOR_SET_TAG, chainid, this, exchangeChainId, exchangeGenesisHash,
    ///         setNonce, keccak256(abi.encodePacked(validators_)), keccak256(abi.encodePacked(powers_)))).
    function validatorSetDigest(uint256 setNonce, address[] memory validators_, uint256[] memory powers_) public view returns (bytes32) {
        return keccak256(
            abi.encode(
                VALIDATOR_SET_TAG,
                block.chainid,
                address(this),
                exchangeChainId,
                exchangeGenesisHash,
                setNonce,
                keccak256(abi.encodePacked(validators_)),
                keccak256(abi.encodePacked(powers_))
            )
        );
    }

    /// @notice Proposes the exchange chain's validator set `setNonce`, signed by validators holding
    ///         more than 2/3 of the power in force (a due pending set is applied first). `setNonce`
    ///         must exceed every nonce seen. Takes effect `disputePeriod` seconds later. Refused
    ///         while another set is pending and not yet due (SetUpdatePending). Anyone may submit.
    function updateValidatorSet(
        address[] calldata validators_,
        uint256[] calldata powers_,
        uint256 setNonce,
        bytes[] calldata signatures
    ) external whenNotPaused {
        _applyDueSet();
        if (pendingSetActiveAt != 0) revert SetUpdatePending(pendingSetNonce, pendingSetActiveAt);
        if (setNonce <= validatorSetNonce) revert StaleNonce(setNonce, validatorSetNonce);
        _checkSet(validators_, powers_);
        _checkValidatorQuorum(validatorSetDigest(setNonce, validators_, powers_), signatures);
        _proposeSet(validators_, powers_, setNonce, false);
    }

    /// @notice Applies the pending validator set once it is due (anyone; not while paused).
    function activateValidatorSet() external whenNotPaused {
        if (pendingSetActiveAt == 0) revert NothingPending();
        if (block.timestamp < pendingSetActiveAt) revert NotDue(pendingSetActiveAt);
        _applyDueSet();
    }

    /// @notice A locker (a validator in force, or an owner) cancels a pending set the owners
    ///         proposed: the owners cannot replace the signers against the validators' will.
    ///         A set the validators signed is not cancellable (pausing holds it).
    function cancelOwnersValidatorSet() external {
        if (powerOf[msg.sender] == 0) revert NotLocker();
        if (pendingSetActiveAt == 0 || !pendingSetByOwners) revert NothingPending();
        uint256 n = pendingSetNonce;
        _clearPendingSet();
        emit ValidatorSetCancelled(n, msg.sender);
    }

    // ---------------------------------------------------------------- owner set

    /// @notice The digest validators sign for the owner set `ownerSetNonce_` (the exchange chain's
    ///         SetOwners): keccak256(abi.encode(OWNERS_TAG, chainid, this, exchangeChainId,
    ///         exchangeGenesisHash, ownerSetNonce_, keccak256(abi.encodePacked(owners_)), threshold)).
    function ownersDigest(uint256 ownerSetNonce_, address[] memory owners_, uint256 threshold) public view returns (bytes32) {
        return keccak256(
            abi.encode(
                OWNERS_TAG, block.chainid, address(this), exchangeChainId, exchangeGenesisHash, ownerSetNonce_, keccak256(abi.encodePacked(owners_)), threshold
            )
        );
    }

    /// @notice Proposes the exchange chain's owner set (its executed SetOwners), signed by validators
    ///         holding more than 2/3 of the power in force: the chain's decision, not the owners',
    ///         changes the owners. A higher nonce replaces a pending owner set (the chain's latest
    ///         decision wins). Takes effect `disputePeriod` seconds later (`activateOwners`).
    function updateOwners(address[] calldata owners_, uint256 threshold, uint256 ownerSetNonce_, bytes[] calldata signatures)
        external
        whenNotPaused
    {
        uint256 floor = pendingOwnersActiveAt != 0 ? pendingOwnerSetNonce : ownerSetNonce;
        if (ownerSetNonce_ <= floor) revert StaleNonce(ownerSetNonce_, floor);
        _checkOwners(owners_, threshold);
        _applyDueSet();
        _checkValidatorQuorum(ownersDigest(ownerSetNonce_, owners_, threshold), signatures);
        delete _pendingOwners;
        for (uint256 i = 0; i < owners_.length; i++) _pendingOwners.push(owners_[i]);
        pendingOwnerThreshold = threshold;
        pendingOwnerSetNonce = ownerSetNonce_;
        pendingOwnersActiveAt = block.timestamp + disputePeriod;
        emit OwnersProposed(ownerSetNonce_, owners_, threshold, pendingOwnersActiveAt);
    }

    /// @notice Applies the pending owner set once it is due (anyone; not while paused).
    function activateOwners() external whenNotPaused {
        if (pendingOwnersActiveAt == 0) revert NothingPending();
        if (block.timestamp < pendingOwnersActiveAt) revert NotDue(pendingOwnersActiveAt);
        address[] memory next = _pendingOwners;
        uint256 threshold = pendingOwnerThreshold;
        ownerSetNonce = pendingOwnerSetNonce;
        delete _pendingOwners;
        pendingOwnerThreshold = 0;
        pendingOwnerSetNonce = 0;
        pendingOwnersActiveAt = 0;
        for (uint256 i = 0; i < _owners.length; i++) isOwner[_owners[i]] = false;
        delete _owners;
        _setOwners(next, threshold);
    }

    // ------------------------------------------------------------------ pausing

    /// @notice Any validator in force (a locker) or owner stops deposits, queueing, payouts and
    ///         every pending change from taking effect.
    function pause() external {
        if (powerOf[msg.sender] == 0 && !isOwner[msg.sender]) revert NotLocker();
        paused = true;
        emit Paused(msg.sender);
    }

    // ------------------------------------------------------------ owner actions

    /// @notice The 32-byte digest owners sign (under the EIP-191 prefix) for the action `actionHash` at nonce `nonce`:
    ///         keccak256(abi.encode(OWNER_ACTION_TAG, chainid, this, exchangeChainId, exchangeGenesisHash, nonce, actionHash)).
    function ownerActionDigest(uint256 nonce, bytes32 actionHash) public view returns (bytes32) {
        return keccak256(abi.encode(OWNER_ACTION_TAG, block.chainid, address(this), exchangeChainId, exchangeGenesisHash, nonce, actionHash));
    }

    /// @notice Resumes the bridge. Needs `ownerThreshold` owner signatures over
    ///         ownerActionDigest(ownerNonce, keccak256(abi.encode(ACTION_UNPAUSE))).
    function unpause(bytes[] calldata ownerSignatures) external {
        if (!paused) revert NotPaused();
        _useOwnerQuorum(keccak256(abi.encode(ACTION_UNPAUSE)), ownerSignatures);
        paused = false;
        emit Unpaused(ownerNonce - 1);
    }

    /// @notice The owners propose a validator set (nonce `setNonce`, above every nonce seen): it is
    ///         pending like a set the validators signed, takes effect `ownerSetDelay` seconds later
    ///         (`activateValidatorSet`), and any locker can cancel it meanwhile. Refused while a set
    ///         is pending and not due. Needs owner signatures over ownerActionDigest(ownerNonce,
    ///         keccak256(abi.encode(ACTION_SET_VALIDATORS, validators_, powers_, setNonce))).
    function setValidators(address[] calldata validators_, uint256[] calldata powers_, uint256 setNonce, bytes[] calldata ownerSignatures)
        external
        whenNotPaused
    {
        _applyDueSet();
        if (pendingSetActiveAt != 0) revert SetUpdatePending(pendingSetNonce, pendingSetActiveAt);
        if (setNonce <= validatorSetNonce) revert StaleNonce(setNonce, validatorSetNonce);
        _checkSet(validators_, powers_);
        _useOwnerQuorum(keccak256(abi.encode(ACTION_SET_VALIDATORS, validators_, powers_, setNonce)), ownerSignatures);
        _proposeSet(validators_, powers_, setNonce, true);
    }

    /// @notice Cancels a queued, unpaid withdrawal (a fraudulent one caught during the dispute
    ///         period). Needs owner signatures over ownerActionDigest(ownerNonce,
    ///         keccak256(abi.encode(ACTION_CANCEL_WITHDRAWAL, withdrawalId))).
    function cancelWithdrawal(uint256 withdrawalId, bytes[] calldata ownerSignatures) external {
        Withdrawal storage w = withdrawals[withdrawalId];
        if (w.state != WithdrawalState.Queued) revert WithdrawalNotQueued(withdrawalId);
        _useOwnerQuorum(keccak256(abi.encode(ACTION_CANCEL_WITHDRAWAL, withdrawalId)), ownerSignatures);
        w.state = WithdrawalState.Cancelled;
        emit WithdrawalCancelled(withdrawalId);
    }

    // -------------------------------------------------------------------- views

    /// @notice The validators in force, ascending, and their powers.
    function validatorSet() external view returns (address[] memory validators_, uint256[] memory powers_) {
        validators_ = _validators;
        powers_ = new uint256[](validators_.length);
        for (uint256 i = 0; i < validators_.length; i++) powers_[i] = powerOf[validators_[i]];
    }

    /// @notice The pending validator set (empty with activeAt 0 when none).
    function pendingValidatorSet()
        external
        view
        returns (address[] memory validators_, uint256[] memory powers_, uint256 setNonce, uint256 activeAt, bool byOwners)
    {
        return (_pendingValidators, _pendingPowers, pendingSetNonce, pendingSetActiveAt, pendingSetByOwners);
    }

    /// @notice The owners, ascending.
    function owners() external view returns (address[] memory) {
        return _owners;
    }

    /// @notice The pending owner set (empty with activeAt 0 when none).
    function pendingOwners() external view returns (address[] memory owners_, uint256 threshold, uint256 setNonce, uint256 activeAt) {
        return (_pendingOwners, pendingOwnerThreshold, pendingOwnerSetNonce, pendingOwnersActiveAt);
    }

    // ---------------------------------------------------------------- internals

    function _checkSet(address[] memory validators_, uint256[] memory powers_) private pure {
        if (validators_.length == 0 || validators_.length > MAX_SET_SIZE) revert BadSet();
        if (validators_.length != powers_.length) revert BadSet();
        address last = address(0);
        for (uint256 i = 0; i < validators_.length; i++) {
            if (validators_[i] <= last || powers_[i] == 0) revert BadSet();
            last = validators_[i];
        }
    }

    function _checkOwners(address[] memory owners_, uint256 threshold) private pure {
        if (owners_.length == 0 || owners_.length > MAX_SET_SIZE) revert BadSet();
        if (threshold == 0 || threshold > owners_.length) revert BadSet();
        address last = address(0);
        for (uint256 i = 0; i < owners_.length; i++) {
            if (owners_[i] <= last) revert BadSet();
            last = owners_[i];
        }
    }

    function _proposeSet(address[] calldata validators_, uint256[] calldata powers_, uint256 setNonce, bool byOwners) private {
        _pendingValidators = validators_;
        _pendingPowers = powers_;
        pendingSetNonce = setNonce;
        pendingSetActiveAt = block.timestamp + (byOwners ? ownerSetDelay : disputePeriod);
        pendingSetByOwners = byOwners;
        emit ValidatorSetProposed(setNonce, validators_, powers_, pendingSetActiveAt);
    }

    function _clearPendingSet() private {
        delete _pendingValidators;
        delete _pendingPowers;
        pendingSetNonce = 0;
        pendingSetActiveAt = 0;
        pendingSetByOwners = false;
    }

    /// @dev Applies the pending set when it is due (callers hold whenNotPaused).
    function _applyDueSet() private {
        if (pendingSetActiveAt == 0 || block.timestamp < pendingSetActiveAt) return;
        address[] memory v = _pendingValidators;
        uint256[] memory p = _pendingPowers;
        validatorSetNonce = pendingSetNonce;
        _clearPendingSet();
        _setValidators(v, p);
    }

    function _setOwners(address[] memory owners_, uint256 threshold) private {
        _checkOwners(owners_, threshold);
        for (uint256 i = 0; i < owners_.length; i++) {
            isOwner[owners_[i]] = true;
            _owners.push(owners_[i]);
        }
        ownerThreshold = threshold;
        emit OwnersChanged(owners_, threshold);
    }

    function _setValidators(address[] memory validators_, uint256[] memory powers_) private {
        _checkSet(validators_, powers_);
        for (uint256 i = 0; i < _validators.length; i++) powerOf[_validators[i]] = 0;
        delete _validators;
        uint256 total = 0;
        for (uint256 i = 0; i < validators_.length; i++) {
            powerOf[validators_[i]] = powers_[i];
            _validators.push(validators_[i]);
            total += powers_[i];
        }
        totalPower = total;
        emit ValidatorSetChanged(validators_, powers_, total);
    }

    function _checkValidatorQuorum(bytes32 digest, bytes[] calldata signatures) private view {
        bytes32 signed = _ethSignedHash(digest);
        uint256 power = 0;
        address last = address(0);
        for (uint256 i = 0; i < signatures.length; i++) {
            address signer = _recover(signed, signatures[i]);
            if (signer <= last) revert SignersNotAscending();
            last = signer;
            uint256 p = powerOf[signer];
            if (p == 0) revert UnknownSigner(signer);
            power += p;
        }
        // More than 2/3: power / total > 2/3  <=>  3 * power > 2 * total (exact in integers).
        if (power * 3 <= totalPower * 2) revert QuorumNotReached(power, totalPower);
    }

    /// @dev Checks the owner signatures for `actionHash` at the current nonce, then spends the nonce.
    function _useOwnerQuorum(bytes32 actionHash, bytes[] calldata signatures) private {
        bytes32 signed = _ethSignedHash(ownerActionDigest(ownerNonce, actionHash));
        address last = address(0);
        for (uint256 i = 0; i < signatures.length; i++) {
            address signer = _recover(signed, signatures[i]);
            if (signer <= last) revert SignersNotAscending();
            last = signer;
            if (!isOwner[signer]) revert UnknownSigner(signer);
        }
        if (signatures.length < ownerThreshold) revert OwnerThresholdNotReached(signatures.length, ownerThreshold);
        ownerNonce += 1;
    }

    function _ethSignedHash(bytes32 digest) private pure returns (bytes32) {
        return keccak256(abi.encodePacked("\x19Ethereum Signed Message:\n32", digest));
    }

    function _recover(bytes32 hash, bytes calldata sig) private pure returns (address signer) {
        if (sig.length != 65) revert BadSignature();
        bytes32 r = bytes32(sig[0:32]);
        bytes32 s = bytes32(sig[32:64]);
        uint8 v = uint8(sig[64]);
        if (uint256(s) > HALF_N || (v != 27 && v != 28)) revert BadSignature();
        signer = ecrecover(hash, v, r, s);
        if (signer == address(0)) revert BadSignature();
    }

    /// @dev Calls the token and checks the result: the call succeeded and, if it returned
    ///      data, that data is an ABI-encoded true.
    function _callToken(bytes memory data) private {
        (bool ok, bytes memory ret) = usdc.call(data);
        if (!ok) revert TokenCallFailed();
        if (ret.length != 0 && (ret.length != 32 || abi.decode(ret, (uint256)) != 1)) revert TokenCallFailed();
    }
}
