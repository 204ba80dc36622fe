// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// @notice What the simulation before signing is tried on (test/chain/simulation.test.ts): calls that
/// succeed, revert with a reason, panic, or raise a custom error, and a token whose transfers the
/// simulation's balance changes read (an ERC-20's Transfer event, nothing more).
contract SimulationTarget {
    error NotAllowed(address who, uint256 code);
    event Transfer(address indexed from, address indexed to, uint256 value);

    uint256 public count;
    mapping(address => uint256) public balanceOf;

    function ok() external {
        count += 1;
    }

    /// Anyone may close it: what changes on chain while a held transaction waits for its quorum.
    bool public closed;

    function setClosed(bool closed_) external {
        closed = closed_;
    }

    function guarded() external {
        require(!closed, "closed");
        count += 1;
    }

    function fail(string calldata why) external pure {
        revert(why);
    }

    function overflow(uint8 x) external pure returns (uint8) {
        return x + 1;
    }

    function custom() external view {
        revert NotAllowed(msg.sender, 7);
    }

    function mint(address to, uint256 amount) external {
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        balanceOf[msg.sender] -= amount;
        balanceOf[to] += amount;
        emit Transfer(msg.sender, to, amount);
        return true;
    }
}
