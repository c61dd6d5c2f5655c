// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title TestUSDC
/// @notice A test stand-in for USDC on the external chain of the exchange's bridge (issue 22):
///         a plain ERC-20 with 6 decimals, mintable by its deployer only. DEVNET / TESTS ONLY:
///         it has no value and its minter can create any amount.
/// @dev Follows EIP-20 exactly: `transfer`, `transferFrom` and `approve` return true or revert.
contract TestUSDC {
    /// @notice The token's name.
    string public constant name = "Test USD Coin";
    /// @notice The token's symbol.
    string public constant symbol = "USDC";
    /// @notice Base units per token: 6, as USDC.
    uint8 public constant decimals = 6;

    /// @notice The only address allowed to mint: the deployer.
    address public immutable minter;
    /// @notice Sum of all balances.
    uint256 public totalSupply;
    /// @notice Balance of each holder, in base units.
    mapping(address => uint256) public balanceOf;
    /// @notice allowance[owner][spender]: what spender may still move out of owner's balance.
    mapping(address => mapping(address => uint256)) public allowance;

    /// @notice EIP-20 transfer event (mints come from the zero address).
    event Transfer(address indexed from, address indexed to, uint256 value);
    /// @notice EIP-20 approval event.
    event Approval(address indexed owner, address indexed spender, uint256 value);

    error NotMinter();
    error ZeroAddress();
    error InsufficientBalance();
    error InsufficientAllowance();

    constructor() {
        minter = msg.sender;
    }

    /// @notice Creates `amount` base units for `to`. Deployer only.
    function mint(address to, uint256 amount) external {
        if (msg.sender != minter) revert NotMinter();
        if (to == address(0)) revert ZeroAddress();
        totalSupply += amount;
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    /// @notice Moves `amount` from the caller to `to`.
    function transfer(address to, uint256 amount) external returns (bool) {
        _transfer(msg.sender, to, amount);
        return true;
    }

    /// @notice Lets `spender` move up to `amount` of the caller's balance (replaces the previous allowance).
    function approve(address spender, uint256 amount) external returns (bool) {
        if (spender == address(0)) revert ZeroAddress();
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    /// @notice Moves `amount` from `from` to `to` out of the caller's allowance (an allowance of 2^256-1 is not spent).
    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            if (allowed < amount) revert InsufficientAllowance();
            allowance[from][msg.sender] = allowed - amount;
        }
        _transfer(from, to, amount);
        return true;
    }

    function _transfer(address from, address to, uint256 amount) private {
        if (to == address(0)) revert ZeroAddress();
        uint256 balance = balanceOf[from];
        if (balance < amount) revert InsufficientBalance();
        unchecked {
            balanceOf[from] = balance - amount;
        }
        balanceOf[to] += amount;
        emit Transfer(from, to, amount);
    }
}
