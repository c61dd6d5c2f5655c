// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title ExchangeBridge
/// @notice The exchange chain's bridge on the external EVM chain (issue 22, decision 81).
///         Deposits: a user approves USDC to this contract and calls `deposit(recipient,
///         amount)`; the contract pulls the USDC and emits `Deposit` with a sequential id
///         (0, 1, 2, ...) that the exchange chain's validators watch and credit once.
///         Withdrawals, in two steps: (1) `queueWithdrawal` records a payout (withdrawal id,
///         recipient, amount, validUntil) only with ECDSA signatures of validators holding
///         more than 2/3 of the total power over a digest bound to this chain id, this
///         contract's address, the withdrawal id, the recipient, the amount and `validUntil`;
///         each id is accepted at most once and becomes payable `disputePeriod` seconds later;
///         (2) `executeWithdrawal`, by anyone, pays it after that time. Neither step is taken
///         after `validUntil` (Unix seconds): a withdrawal not paid by then can never be paid,
///         so the exchange chain can refund it safely (decision 83). During the dispute period any validator (or owner)
///         can `pause`: a paused bridge takes no deposit, queues nothing and pays nothing.
///         Only the owners (`ownerThreshold` distinct owner signatures over a digest bound to
///         the chain id, this address and a sequential owner nonce) can unpause, cancel a
///         queued withdrawal, or replace the validator set.
/// @dev Checks-effects-interactions everywhere plus a reentrancy guard; token calls are
///      checked (call success and, when data is returned, a true boolean). Signature lists
///      are ordered by strictly ascending signer address, so a signer counts once. Signatures
///      are 65 bytes (r, s, v) over the EIP-191 "\x19Ethereum Signed Message:\n32" hash of
///      the 32-byte digest (what `personal_sign`/viem `signMessage({message: {raw}})` sign),
///      low s only.
contract ExchangeBridge {
    /// @notice Domain tags of the two signed messages (a withdrawal signature is never an owner action).
    bytes32 public constant WITHDRAWAL_TAG = keccak256("ExchangeBridge.Withdrawal.v2");
    bytes32 public constant OWNER_ACTION_TAG = keccak256("ExchangeBridge.OwnerAction.v1");
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
    /// @notice Seconds between a withdrawal's queueing and the earliest time it can be paid.
    uint256 public immutable disputePeriod;

    /// @notice The id the next deposit gets; deposits are numbered 0, 1, 2, ...
    uint256 public nextDepositId;
    /// @notice True while paused: no deposit, no queueing, no payout.
    bool public paused;

    address[] private _validators;
    /// @notice Voting power of each validator (0: not a validator).
    mapping(address => uint256) public powerOf;
    /// @notice Sum of the validators' powers.
    uint256 public totalPower;

    address[] private _owners;
    /// @notice True for each owner.
    mapping(address => bool) public isOwner;
    /// @notice Distinct owner signatures an owner action needs.
    uint256 public immutable ownerThreshold;
    /// @notice Sequence number of the next owner action (signed into its digest: no replay).
    uint256 public ownerNonce;

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
    /// @notice The validator set replaced.
    event ValidatorSetChanged(address[] validators, uint256[] powers, uint256 totalPower);

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
    /// @param disputePeriod_ Seconds a queued withdrawal waits before it can be paid.
    /// @param validators_ The validators' addresses, strictly ascending.
    /// @param powers_ Their powers, each > 0.
    /// @param owners_ The owners' addresses, strictly ascending.
    /// @param ownerThreshold_ Distinct owner signatures an owner action needs (1..owners).
    constructor(
        address usdc_,
        uint256 disputePeriod_,
        address[] memory validators_,
        uint256[] memory powers_,
        address[] memory owners_,
        uint256 ownerThreshold_
    ) {
        if (usdc_.code.length == 0) revert ZeroAddress();
        if (owners_.length == 0 || owners_.length > MAX_SET_SIZE) revert BadSet();
        if (ownerThreshold_ == 0 || ownerThreshold_ > owners_.length) revert BadSet();
        usdc = usdc_;
        disputePeriod = disputePeriod_;
        ownerThreshold = ownerThreshold_;
        address last = address(0);
        for (uint256 i = 0; i < owners_.length; i++) {
            if (owners_[i] <= last) revert BadSet();
            last = owners_[i];
            isOwner[last] = true;
            _owners.push(last);
        }
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
    ///         keccak256(abi.encode(WITHDRAWAL_TAG, chainid, this, withdrawalId, recipient, amount, validUntil)).
    function withdrawalDigest(uint256 withdrawalId, address recipient, uint256 amount, uint256 validUntil)
        public
        view
        returns (bytes32)
    {
        return keccak256(abi.encode(WITHDRAWAL_TAG, block.chainid, address(this), withdrawalId, recipient, amount, validUntil));
    }

    /// @notice Step 1: records withdrawal `withdrawalId` (to `recipient`, `amount` USDC base units,
    ///         valid until `validUntil` unix seconds) given signatures of validators holding more
    ///         than 2/3 of the total power, ordered by ascending signer address. Payable
    ///         `disputePeriod` seconds from now and up to `validUntil`. Anyone may submit.
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

    // ------------------------------------------------------------------ pausing

    /// @notice Any validator (a locker) or owner stops deposits, queueing and payouts.
    function pause() external {
        if (powerOf[msg.sender] == 0 && !isOwner[msg.sender]) revert NotLocker();
        paused = true;
        emit Paused(msg.sender);
    }

    // ------------------------------------------------------------ owner actions

    /// @notice The 32-byte digest owners sign (under the EIP-191 prefix) for the action `actionHash` at nonce `nonce`.
    function ownerActionDigest(uint256 nonce, bytes32 actionHash) public view returns (bytes32) {
        return keccak256(abi.encode(OWNER_ACTION_TAG, block.chainid, address(this), nonce, actionHash));
    }

    /// @notice Resumes the bridge. Needs `ownerThreshold` owner signatures over
    ///         ownerActionDigest(ownerNonce, keccak256(abi.encode(ACTION_UNPAUSE))).
    function unpause(bytes[] calldata ownerSignatures) external {
        if (!paused) revert NotPaused();
        _useOwnerQuorum(keccak256(abi.encode(ACTION_UNPAUSE)), ownerSignatures);
        paused = false;
        emit Unpaused(ownerNonce - 1);
    }

    /// @notice Replaces the validator set (allowed while paused: it is how a compromised set is
    ///         removed). Needs owner signatures over ownerActionDigest(ownerNonce,
    ///         keccak256(abi.encode(ACTION_SET_VALIDATORS, validators_, powers_))).
    function setValidators(address[] calldata validators_, uint256[] calldata powers_, bytes[] calldata ownerSignatures)
        external
    {
        _useOwnerQuorum(keccak256(abi.encode(ACTION_SET_VALIDATORS, validators_, powers_)), ownerSignatures);
        _setValidators(validators_, powers_);
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

    /// @notice The validators, ascending, and their powers.
    function validatorSet() external view returns (address[] memory validators_, uint256[] memory powers_) {
        validators_ = _validators;
        powers_ = new uint256[](validators_.length);
        for (uint256 i = 0; i < validators_.length; i++) powers_[i] = powerOf[validators_[i]];
    }

    /// @notice The owners, ascending.
    function owners() external view returns (address[] memory) {
        return _owners;
    }

    // ---------------------------------------------------------------- internals

    function _setValidators(address[] memory validators_, uint256[] memory powers_) private {
        if (validators_.length == 0 || validators_.length > MAX_SET_SIZE) revert BadSet();
        if (validators_.length != powers_.length) revert BadSet();
        for (uint256 i = 0; i < _validators.length; i++) powerOf[_validators[i]] = 0;
        delete _validators;
        uint256 total = 0;
        address last = address(0);
        for (uint256 i = 0; i < validators_.length; i++) {
            if (validators_[i] <= last || powers_[i] == 0) revert BadSet();
            last = validators_[i];
            powerOf[last] = powers_[i];
            _validators.push(last);
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
